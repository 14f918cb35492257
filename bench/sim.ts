import { readdirSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { explore } from '../src/explore/explore.js';
import { builtInQueue } from '../src/libraries/registry.js';
import { checkerByName } from '../src/checker/index.js';
import { runCheckers } from '../src/checker/compose.js';
import { KNOWN_BAD_VARIANTS } from '../src/queue/known-bad-queues.js';
import { loadScenario, scenarioToRunPlan } from '../src/scenario/load-scenario.js';
import type { RunPlan } from '../src/scenario/execute-run.js';
import { SimDatabase } from '../src/sim/pglite/sim-database.js';
import { simulateRun } from '../src/sim/pglite/sim-run.js';
import { simPlanOf } from '../src/sim/pglite/scenario-sim.js';
import { report } from './stats.js';

/**
 * The simulation on PGlite (issue 25): simulated runs per minute of the curated scenarios it
 * models, the reference queue, one PGlite in this process (target ≥ 1,000 a minute); the same for
 * `explore --sim`'s drawn scenarios; and for
 * each known-bad variant the wall time until the simulation first catches it with its own
 * checker, scenario by scenario in file order and seed after seed (target ≤ 10 s), or why not.
 */
export async function benchSim(): Promise<void> {
  const db = await SimDatabase.start();
  try {
    const scenarios = await Promise.all(
      readdirSync('scenarios')
        .filter((f) => f.endsWith('.yaml'))
        .map((f) => loadScenario(`scenarios/${f}`)),
    );
    const simulable = scenarios.filter((s) => {
      try {
        simPlanOf(scenarioToRunPlan(s, { queue: 'reference' }), builtInQueue('reference')!);
        return true;
      } catch {
        return false;
      }
    });
    const reference = builtInQueue('reference')!;
    let runs = 0;
    const started = performance.now();
    for (let seed = 1; performance.now() - started < 30_000; seed += 1) {
      for (const s of simulable) {
        await simulateRun(
          db,
          simPlanOf(scenarioToRunPlan(s, { queue: 'reference', seed }), reference),
        );
        runs += 1;
      }
    }
    const minutes = (performance.now() - started) / 60_000;
    report({
      metric: 'sim_runs_per_minute',
      value: Math.round(runs / minutes),
      unit: 'runs/min',
      scenarios: simulable.length,
      of: scenarios.length,
      target: '>= 1000',
    });
    // explore --sim on the reference: fast-check's draws (2–4 workers, up to 8 jobs of up to 16
    // units, 1–3 faults) in simulated time, no confirmation needed: the reference must not fail.
    // One lane in this process, then two lanes on two simulation processes (the machine's two
    // cores; the pool's start-up — each child starts its own PGlite — counts against it).
    for (const parallel of [1, 2]) {
      const drawnStarted = performance.now();
      let firstRunAt = NaN;
      const explored = await explore({
        onProgress: (p) => {
          if (p.runsDone > 0 && Number.isNaN(firstRunAt)) firstRunAt = performance.now();
        },
        queue: 'reference',
        runs: 1_000_000,
        seed: 1,
        budgetMs: 30_000,
        sim: true,
        parallel,
        outDir: await mkdtemp(join(tmpdir(), 'leaseproof-bench-sim-')),
        confirm: () => Promise.reject(new Error('the reference failed in simulation')),
      });
      report({
        metric: 'explore_sim_runs_per_minute',
        value: Math.round(explored.runsDone / ((performance.now() - drawnStarted) / 60_000)),
        unit: 'runs/min',
        parallel,
        // From the first run done: the rate once the simulation processes have started.
        afterStartUp: Math.round(
          (explored.runsDone - 1) / ((performance.now() - firstRunAt) / 60_000),
        ),
        startUpMs: Math.round(firstRunAt - drawnStarted),
        runs: explored.runsDone,
        referenceFailed: explored.failed || explored.unconfirmed.length > 0,
        target: '>= 1000',
      });
    }
    for (const variant of KNOWN_BAD_VARIANTS) {
      const checker = checkerByName(variant.catches)!;
      const t0 = performance.now();
      let found: string | undefined;
      let tried = 0;
      search: for (let seed = 0; seed < 3 && performance.now() - t0 < 60_000; seed += 1) {
        for (const s of simulable) {
          const plan: RunPlan = scenarioToRunPlan(s, {
            queue: variant.queue.name,
            ...(seed > 0 && { seed }),
          });
          tried += 1;
          const result = runCheckers(
            [checker],
            await simulateRun(db, simPlanOf(plan, variant.queue)),
          );
          if (result.valid === 'invalid') {
            found = `${s.name} seed ${plan.seed}`;
            break search;
          }
        }
      }
      report({
        metric: 'sim_time_to_first_failure',
        value: found === undefined ? NaN : Math.round(performance.now() - t0),
        unit: 'ms',
        variant: variant.queue.name,
        checker: variant.catches,
        runs: tried,
        found: found ?? 'not found in simulation: left to real runs',
        target: '<= 10000',
      });
    }
  } finally {
    await db.stop();
  }
}
