import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedEnvironmentProvider } from '../src/env/embedded-env.js';
import { explore } from '../src/explore/explore.js';
import { defaultParallelism } from '../src/scale-out/parallelism.js';
import { report } from './stats.js';

// Fixed seeds whose draws reach each weakness early (the explore tests use the same ones).
const CASES: [queue: string, seed: number][] = [
  ['unconditional-ack', 120],
  ['worker-clock-lease', 68],
  ['main-thread-heartbeat', 8019],
  ['no-watchdog', 2425],
];
const REFERENCE_BUDGET_MS = 120_000;

/**
 * Runs per minute on the reference at `--parallel 1` and at the default, side by side, with
 * any false alarm (a reference run judged invalid); then time to first failure and shrink time
 * for each known-bad queue from a fixed seed (30 s budget each) at both settings.
 */
export async function benchExplore(): Promise<void> {
  await using env = await new EmbeddedEnvironmentProvider().start();
  const outDir = await mkdtemp(join(tmpdir(), 'leaseproof-explore-bench-'));
  const settings = [1, defaultParallelism()];
  const rates: number[] = [];
  for (const parallel of settings) {
    const reference = await explore({
      queue: 'reference',
      seed: 2026,
      runs: 1_000,
      budgetMs: REFERENCE_BUDGET_MS,
      env,
      outDir,
      parallel,
    });
    const perMinute = reference.runsDone / (reference.elapsedMs / 60_000);
    rates.push(perMinute);
    report({
      metric: 'explore_reference_runs_per_minute',
      value: Math.round(perMinute * 10) / 10,
      unit: 'runs/min',
      parallel,
      runs: reference.runsDone,
      elapsedMs: reference.elapsedMs,
      falseAlarm: reference.failed,
      unconfirmed: reference.unconfirmed.length,
      ...(reference.failed && { violated: reference.violated, file: reference.file }),
    });
  }
  report({
    metric: 'explore_parallel_speedup',
    value: Math.round((rates[1]! / rates[0]!) * 100) / 100,
    unit: 'ratio',
    parallel: settings[1],
    formula: 'runs/min at the default ÷ runs/min at --parallel 1',
    target: '>= 2',
  });
  for (const [queue, seed] of CASES) {
    for (const parallel of settings) {
      const result = await explore({
        queue,
        seed,
        runs: 50,
        budgetMs: 30_000,
        env,
        outDir,
        parallel,
      });
      if (!result.failed) {
        report({
          metric: 'explore_first_failure',
          value: NaN,
          unit: 'ms',
          queue,
          seed,
          parallel,
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
        parallel,
        violated: result.violated,
      });
      report({
        metric: 'explore_shrink_time',
        value: Math.round(result.elapsedMs - result.firstFailureMs),
        unit: 'ms',
        queue,
        seed,
        parallel,
        shrinkSteps: result.shrinks,
        faultsLeft: result.minimal.faults.length,
        note: 'includes the confirming replays',
      });
    }
  }
}
