import { mkdtemp, readFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runScenarios } from '../src/run/run-scenarios.js';
import { scenarioFiles } from '../src/cli/scenario-folder.js';
import { StartedCpuHog } from '../src/env/cpu-hog.js';
import { median, report } from './stats.js';

/** The conditions the bench compares. */
type Condition = 'quiet' | 'loaded';

/**
 * False alarms of the reference queue, quiet and under load: the curated suite, `--runs` times
 * (default 10) per condition; "loaded" runs it with a busy process on every core (started and
 * stopped here). The reference is correct, so every `invalid` is a false alarm; an `unknown`
 * (harness starvation, say) is honest and counted apart. Target: 0 false invalids under load.
 *
 * `npm run bench -- flake [--runs N] [--only quiet|loaded] [--hogs N] [--scenario name …]`:
 * `--hogs` busy processes instead of one per core, for a harsher load; `--scenario` only these
 * scenarios of the suite (to chase one false alarm). Not part of the default bench run: it takes most
 * of an hour.
 */
export async function benchFlake(argv: string[]): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: 'string', default: '10' },
      only: { type: 'string' },
      hogs: { type: 'string', default: String(availableParallelism()) },
      scenario: { type: 'string', multiple: true },
    },
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs: expected a positive integer`);
  const hogs = Number(values.hogs);
  if (!Number.isInteger(hogs) || hogs < 1) throw new Error(`--hogs: expected a positive integer`);
  const conditions: Condition[] =
    values.only === 'quiet' || values.only === 'loaded' ? [values.only] : ['quiet', 'loaded'];
  const wanted = values.scenario;
  const files = (await scenarioFiles('scenarios')).filter(
    (file) => wanted === undefined || wanted.some((name) => file.endsWith(`/${name}.yaml`)),
  );
  if (files.length === 0) throw new Error(`--scenario: no such scenario in scenarios/`);
  for (const condition of conditions) {
    const hog = condition === 'loaded' ? await StartedCpuHog.start({ processes: hogs }) : undefined;
    try {
      let invalidRuns = 0;
      let unknownRuns = 0;
      const wall: number[] = [];
      for (let i = 1; i <= runs; i += 1) {
        const started = performance.now();
        const result = await runScenarios({
          files,
          queues: ['reference'],
          out: await mkdtemp(join(tmpdir(), 'leaseproof-flake-')),
          log: () => undefined,
        });
        wall.push((performance.now() - started) / 1000);
        const bad = (verdict: 'invalid' | 'unknown'): string[] =>
          result.outcomes.flatMap((o) =>
            o.result.results
              .filter((r) => r.valid === verdict)
              .map((r) => `${o.scenario}/${r.checker}${r.why === undefined ? '' : `: ${r.why}`}`),
          );
        const invalid = bad('invalid');
        const unknown = bad('unknown');
        if (invalid.length > 0) invalidRuns += 1;
        else if (unknown.length > 0) unknownRuns += 1;
        report({
          metric: 'flake_suite_run',
          value: invalid.length,
          unit: 'invalid verdicts',
          condition,
          run: i,
          scenarios: result.outcomes.length,
          unknown: unknown.length,
          wallS: Math.round(wall[wall.length - 1]! * 10) / 10,
          starvedEvents: await starvedEventsOf(result.paths.scenarios.map((p) => p.history)),
          excused: result.outcomes.reduce(
            (n, o) => n + o.result.results.reduce((m, r) => m + (r.counts.starved ?? 0), 0),
            0,
          ),
          ...(invalid.length > 0 && { invalid }),
          ...(unknown.length > 0 && { unknownWhy: unknown }),
          report: result.dir,
        });
      }
      report({
        metric: 'flake_false_invalid_runs',
        value: invalidRuns,
        unit: `of ${runs} runs`,
        condition,
        unknownRuns,
        medianWallS: Math.round(median(wall) * 10) / 10,
        ...(hog !== undefined && { hogProcesses: hog.processes }),
        target: '0',
      });
    } finally {
      await hog?.stop();
    }
  }
}

/** How many `starved` events the histories hold: how much starvation the probes saw. */
async function starvedEventsOf(files: string[]): Promise<number> {
  let n = 0;
  for (const file of files) {
    const text = await readFile(file, 'utf8');
    n += text.split('\n').filter((line) => line.includes('"kind":"starved"')).length;
  }
  return n;
}
