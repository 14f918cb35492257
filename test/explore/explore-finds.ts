// Explore against known-bad queues, from fixed seeds, for real: each is caught, shrunk to a
// schedule of at most a few faults, and its written counterexample replays to the same
// violated invariant. Two files of two queues each, so that vitest runs them side by side.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { explore } from '../../src/explore/explore.js';
import { runAndCheck } from '../../src/scenario/run-and-check.js';
import { loadScenario, scenarioToRunPlan } from '../../src/scenario/load-scenario.js';

const BUDGET_MS = 30_000;

/** Seeds whose first draws hit each queue's weakness; the budget bounds search and shrinking. */
export type ExploreCase = [queue: string, seed: number, checker: string];

/** One environment for the file; one test per case. */
export function describeExploreFinds(cases: ExploreCase[]): void {
  describe('explore against the known-bad queues', () => {
    let env: StartedEnvironment;
    beforeAll(async () => {
      env = await new EmbeddedEnvironmentProvider().start();
    });
    afterAll(async () => {
      await env?.stop();
    });

    for (const [queue, seed, checker] of cases) {
      // One retry, as for the suite acceptance test: a search over real timing on a shared
      // two-core machine (another explore file runs beside this one) can land a schedule that
      // reproduces only some of the time; the retry runs the whole search again.
      it(
        `finds ${queue} (seed ${seed}) on ${checker}, shrinks it, and the file replays`,
        { retry: 1, timeout: 150_000 },
        async () => {
          const outDir = await mkdtemp(join(tmpdir(), 'leaseproof-explore-'));
          const result = await explore({ queue, runs: 20, seed, budgetMs: BUDGET_MS, env, outDir });
          if (!result.failed) throw new Error(`no counterexample in ${result.runsDone} runs`);
          console.log(
            `${queue}: first failure after ${result.firstFailureMs} ms, ${result.shrinks} shrink ` +
              `steps, ${result.runsDone} runs, ${result.scenario.faults.length} fault(s): ` +
              `${result.violated.join(', ')}; confirmed ${result.reproduced}/${result.replays}` +
              (JSON.stringify(result.scenario) === JSON.stringify(result.minimal)
                ? ''
                : ' (stretched)') +
              // The schedule itself, so that a miss on a loaded machine can be read afterwards.
              `\n  faults: ${JSON.stringify(result.scenario.faults)}; ${result.scenario.workers} ` +
              `workers, ${result.scenario.jobs} jobs, lease ${result.scenario.leaseMs}ms, ` +
              `handler ${JSON.stringify(result.scenario.handler)}`,
          );
          expect(result.violated).toContain(checker);
          expect(result.scenario.faults.length).toBeLessThanOrEqual(2);
          expect(result.replayCommand).toBe(`leaseproof run ${result.file} --queue ${queue}`);

          const scenario = await loadScenario(result.file);
          expect(scenario.description).toContain(`seed ${seed}`);
          expect(scenario.description).toContain(result.counterexamplePath);
          // Real timing is not deterministic: the schedule is replayed, and the violation must show
          // on the first run or, at worst, the second.
          let replayed: string[] = [];
          for (let attempt = 0; attempt < 2 && !replayed.includes(checker); attempt += 1) {
            const { result: verdict } = await runAndCheck(
              env,
              scenarioToRunPlan(scenario, { queue }),
              {
                checkOptions: { strictCauses: true },
              },
            );
            replayed = verdict.results.filter((r) => r.valid === 'invalid').map((r) => r.checker);
          }
          expect(replayed).toContain(checker);
        },
      );
    }
  });
}
