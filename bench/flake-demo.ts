import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { VerdictFile } from '../src/report/verdict-types.js';
import { median, report } from './stats.js';

/** The conditions: the demo alone, or beside two other leaseproof suites (three CI jobs). */
type Condition = 'quiet' | 'loaded';

/** One command's end: exit code, wall time and what its report holds. */
interface Ended {
  code: number | null;
  wallS: number;
  /** Cells judged invalid that the command's own expectations do not call for. */
  falseInvalid: string[];
  /** Cells the harness could not judge. */
  errors: string[];
  /** Cells left unknown. */
  unknown: string[];
  /** Whether verdict.json, summary.md and junit.xml were all written. */
  report: boolean;
  /** The report folder's size: the sum of its files' sizes, in bytes. */
  reportBytes: number;
  /** The last lines it printed, kept for a failed run. */
  tail: string;
}

/**
 * The README's first command under the conditions of a shared CI runner: `npm run demo` — the
 * command as package.json has it, its report sent to a folder of its own — `--runs` times alone
 * and `--runs` times started together with two other leaseproof suites (the reference through
 * the curated suite at their default parallelism), as three CI jobs on one 2-core runner would
 * be. Per condition: runs, passed (the demo exits 0 and, loaded, the other suites exit 0 too),
 * false-invalid cells, error cells, reports written, median wall time of the demo.
 *
 * `npm run bench -- flake --demo [--runs N] [--only quiet|loaded] [--scenarios DIR]`. Target:
 * every run passed, 0 false invalid, 0 error, every report written; quiet median no worse than
 * 119 s. That figure was measured when the suite had 19 scenarios; `--scenarios DIR` runs the
 * demo's command over another folder (e.g. those 19 alone), to compare like with like.
 */
export async function benchFlakeDemo(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      demo: { type: 'boolean' },
      runs: { type: 'string', default: '10' },
      only: { type: 'string' },
      scenarios: { type: 'string' },
    },
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs: expected a positive integer`);
  const conditions: Condition[] =
    values.only === 'quiet' || values.only === 'loaded' ? [values.only] : ['quiet', 'loaded'];
  // The installed command runs dist/: build it from this tree so the bench measures this code.
  execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
  for (const condition of conditions) {
    const demo: Ended[] = [];
    let passed = 0;
    let falseInvalid = 0;
    let errors = 0;
    let reports = 0;
    for (let i = 1; i <= runs; i += 1) {
      const others =
        condition === 'loaded'
          ? [1, 2].map(() => leaseproof(['suite', '--queue', 'reference'], 'reference=valid'))
          : [];
      const mine = await npmDemo(values.scenarios);
      const theirs = await Promise.all(others);
      demo.push(mine);
      const all = [mine, ...theirs];
      const ok = all.every((e) => e.code === 0);
      if (ok) passed += 1;
      falseInvalid += all.reduce((n, e) => n + e.falseInvalid.length, 0);
      errors += all.reduce((n, e) => n + e.errors.length, 0);
      reports += all.filter((e) => e.report).length;
      report({
        metric: 'flake_demo_run',
        value: mine.wallS,
        unit: 's',
        condition,
        run: i,
        passed: ok,
        reportMB: Math.round(mine.reportBytes / 10_000) / 100,
        exitCodes: all.map((e) => e.code),
        falseInvalid: all.flatMap((e) => e.falseInvalid),
        errors: all.flatMap((e) => e.errors),
        unknown: all.flatMap((e) => e.unknown),
        ...(!ok && { tails: all.filter((e) => e.code !== 0).map((e) => e.tail) }),
      });
    }
    report({
      metric: 'flake_demo',
      value: passed,
      unit: `of ${runs} runs passed`,
      condition,
      ...(values.scenarios !== undefined && { scenarios: values.scenarios }),
      falseInvalidCells: falseInvalid,
      errorCells: errors,
      reportsWritten: `${reports} of ${runs * (condition === 'loaded' ? 3 : 1)}`,
      medianWallS: Math.round(median(demo.map((d) => d.wallS)) * 10) / 10,
      medianReportMB: Math.round(median(demo.map((d) => d.reportBytes)) / 10_000) / 100,
      target:
        'all passed, 0 false invalid, 0 error, every report; quiet median ≤ 119 s; report ≤ 5 MB',
    });
  }
}

/**
 * `npm run demo`, exactly as package.json has it, with its report in a folder of its own (and
 * over `scenarios` instead of the shipped folder, when given).
 */
async function npmDemo(scenarios?: string): Promise<Ended> {
  const pkg = JSON.parse(await readFile('package.json', 'utf8')) as {
    scripts: Record<string, string>;
  };
  const expect = [...pkg.scripts.demo!.matchAll(/--expect (\S+)/g)].map((m) => m[1]!);
  const out = await mkdtemp(join(tmpdir(), 'leaseproof-demo-'));
  const args = ['run', '--silent', 'demo', '--', '--out', out, ...(scenarios ? [scenarios] : [])];
  return ended(spawnCommand('npm', args), out, expect);
}

/** `leaseproof <args>` through the installed entry, with its report in a folder of its own. */
async function leaseproof(args: string[], ...expect: string[]): Promise<Ended> {
  const out = await mkdtemp(join(tmpdir(), 'leaseproof-other-'));
  return ended(
    spawnCommand(process.execPath, ['bin/leaseproof.js', ...args, '--out', out]),
    out,
    expect,
  );
}

function spawnCommand(command: string, args: string[]) {
  return spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
}

async function ended(
  child: ReturnType<typeof spawnCommand>,
  out: string,
  expect: string[],
): Promise<Ended> {
  const started = performance.now();
  let tail = '';
  const keep = (chunk: Buffer): void => {
    tail = (tail + chunk.toString()).slice(-3_000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const wallS = Math.round((performance.now() - started) / 100) / 10;
  const expected = new Map(expect.map((e) => e.split('=') as [string, string]));
  const dirs = (await readdir(out)).filter((n) => /^\d{8}t\d{6}_/.test(n));
  const dir = dirs[0] === undefined ? undefined : join(out, dirs[0]);
  const files = dir === undefined ? [] : await readdir(dir);
  const written = ['verdict.json', 'summary.md', 'junit.xml'].every((f) => files.includes(f));
  if (dir === undefined || !files.includes('verdict.json')) {
    const reportBytes = dir === undefined ? 0 : await folderBytes(dir);
    return {
      code,
      wallS,
      falseInvalid: [],
      errors: [],
      unknown: [],
      report: false,
      reportBytes,
      tail,
    };
  }
  const verdict = JSON.parse(await readFile(join(dir, 'verdict.json'), 'utf8')) as VerdictFile;
  const cell = (s: { name: string; queue: string }): string => `${s.name} × ${s.queue}`;
  return {
    code,
    wallS,
    // Only a queue expected valid can be falsely invalid; a known-bad queue is invalid by design.
    falseInvalid: verdict.scenarios
      .filter((s) => s.verdict === 'invalid' && expected.get(s.queue) === 'valid')
      .map(
        (s) =>
          `${cell(s)}: ${s.checkers
            .filter((c) => c.verdict === 'invalid')
            .map((c) => c.id)
            .join(' ')}`,
      ),
    errors: (verdict.notJudged ?? []).map((n) => `${cell(n)}: ${n.cause.split('\n')[0]}`),
    unknown: verdict.scenarios.filter((s) => s.verdict === 'unknown').map(cell),
    report: written,
    reportBytes: await folderBytes(dir),
    tail,
  };
}

/** The sum of the sizes of every file under `dir`. */
async function folderBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) bytes += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return bytes;
}
