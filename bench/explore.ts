import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEnvironmentProvider } from '../src/env/embedded-env.js';
import { explore } from '../src/explore/explore.js';
import { report } from './stats.js';

// Fixed seeds whose draws reach each weakness early (the explore tests use the same ones).
const CASES: [queue: string, seed: number][] = [
  ['unconditional-ack', 120],
  ['worker-clock-lease', 68],
  ['main-thread-heartbeat', 8019],
  ['no-watchdog', 2425],
];

/**
 * Time to first failure and shrink time for each known-bad queue from a fixed seed (30 s
 * budget each), and runs per minute on the reference.
 */
export async function benchExplore(): Promise<void> {
  await using env = await new EmbeddedEnvironmentProvider().start();
  const outDir = await mkdtemp(join(tmpdir(), 'leaseproof-explore-bench-'));
  for (const [queue, seed] of CASES) {
    const result = await explore({ queue, seed, runs: 50, budgetMs: 30_000, env, outDir });
    if (!result.failed) {
      report({
        metric: 'explore_first_failure',
        value: NaN,
        unit: 'ms',
        queue,
        seed,
        found: false,
        runs: result.runsDone,
      });
      continue;
    }
    report({
      metric: 'explore_first_failure',
      value: Math.round(result.firstFailureMs),
      unit: 'ms',
      queue,
      seed,
      violated: result.violated,
    });
    report({
      metric: 'explore_shrink_time',
      value: Math.round(result.elapsedMs - result.firstFailureMs),
      unit: 'ms',
      queue,
      seed,
      shrinkSteps: result.shrinks,
      faultsLeft: result.minimal.faults.length,
      note: 'includes the confirming replays',
    });
  }
  const reference = await explore({
    queue: 'reference',
    seed: 2026,
    runs: 5,
    budgetMs: 120_000,
    env,
    outDir,
  });
  report({
    metric: 'explore_reference_runs_per_minute',
    value: Math.round((reference.runsDone / (reference.elapsedMs / 60_000)) * 10) / 10,
    unit: 'runs/min',
    runs: reference.runsDone,
    falseAlarm: reference.failed,
  });
}
