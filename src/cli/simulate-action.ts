/**
 * What `leaseproof simulate` does: each scenario × queue in simulated time on PGlite, judged by
 * the scenario's checkers, one line each — or why the simulation cannot model it. A simulated
 * verdict is a lead, not a result: `run` the same scenario to confirm it on PostgreSQL, Toxiproxy
 * and worker processes.
 */
import { loadQueueAdapter } from '../libraries/load-adapter.js';
import { checkerByName } from '../checker/index.js';
import { runCheckers } from '../checker/compose.js';
import { ConfigError } from '../errors.js';
import { loadScenario, scenarioToRunPlan } from '../scenario/load-scenario.js';
import { SimDatabase, SimulationLimitError } from '../sim/pglite/sim-database.js';
import { simulateRun } from '../sim/pglite/sim-run.js';
import { SimulationBoundError, type SimBounds } from '../sim/pglite/sim-bounds.js';
import { simPlanOf } from '../sim/pglite/scenario-sim.js';
import { resolveScenarioArgs } from './scenario-args.js';

const say = (line: string): void => void process.stderr.write(line + '\n');

/** The flags of `simulate`, as commander parses them. */
export interface SimulateFlags {
  queue?: string[];
  seed?: string;
  /** Each run's wall-time bound, seconds. */
  wallBound?: string;
  /** Each run's bound on simulated steps. */
  stepBound?: string;
}

/** The bounds the flags set, each a positive number. */
function boundsOf(flags: SimulateFlags): Partial<SimBounds> {
  const positive = (flag: string, value: string): number => {
    const n = Number(value);
    if (!(n > 0)) throw new ConfigError(`${flag} must be a positive number; got "${value}"`);
    return n;
  };
  return {
    ...(flags.wallBound !== undefined && {
      wallMs: positive('--wall-bound', flags.wallBound) * 1000,
    }),
    ...(flags.stepBound !== undefined && { steps: positive('--step-bound', flags.stepBound) }),
  };
}

/** `leaseproof simulate <files…>`. */
export async function simulateFiles(args: string[], flags: SimulateFlags): Promise<void> {
  let seed: number | undefined;
  if (flags.seed !== undefined) {
    seed = Number(flags.seed);
    if (!Number.isInteger(seed))
      throw new ConfigError(`--seed must be an integer; got "${flags.seed}"`);
  }
  const bounds = boundsOf(flags);
  const files = await resolveScenarioArgs(args, say);
  const queues = await Promise.all((flags.queue ?? ['reference']).map((q) => loadQueueAdapter(q)));
  const db = await SimDatabase.start();
  let worst = 0;
  try {
    for (const file of files) {
      const scenario = await loadScenario(file);
      const checkers = scenario.check.map((name) => {
        const checker = checkerByName(name);
        if (checker === undefined) throw new ConfigError(`${file}: unknown checker "${name}"`);
        return checker;
      });
      for (const queue of queues) {
        const label = `${scenario.name} × ${queue.name}`;
        const runPlan = scenarioToRunPlan(scenario, {
          queue: queue.name,
          ...(seed !== undefined && { seed }),
        });
        let plan;
        try {
          plan = simPlanOf(runPlan, queue);
        } catch (error) {
          if (!(error instanceof SimulationLimitError)) throw error;
          console.log(`${label}: not simulated (${error.message})`);
          worst = Math.max(worst, 2);
          continue;
        }
        const started = performance.now();
        let history;
        try {
          history = await simulateRun(db, { ...plan, bounds });
        } catch (error) {
          // A run its bounds cut short: no verdict, and the next one runs.
          if (error instanceof SimulationBoundError) {
            console.log(`${label}: unknown in simulation (${error.message})`);
            worst = Math.max(worst, 2);
            continue;
          }
          // A statement the simulation cannot model (a transaction left open across others).
          if (!(error instanceof SimulationLimitError)) throw error;
          console.log(`${label}: not simulated (${error.message})`);
          worst = Math.max(worst, 2);
          continue;
        }
        const result = runCheckers(checkers, history, scenario.checkOptions);
        const ms = Math.round(performance.now() - started);
        const invalid = result.results.filter((r) => r.valid === 'invalid');
        console.log(
          `${label}: ${result.valid} in simulation (seed ${plan.seed}, ${ms} ms)` +
            invalid
              .map((r) => `\n  ${r.id} ${r.checker}: ${r.evidence[0]?.message ?? ''}`)
              .join(''),
        );
        worst = Math.max(worst, result.valid === 'invalid' ? 1 : result.valid === 'valid' ? 0 : 2);
      }
    }
  } finally {
    await db.stop();
  }
  if (worst === 1)
    say('invalid in simulation: confirm with `leaseproof run` on the same scenario and seed');
  process.exitCode = worst;
}
