/**
 * Property-based exploration. fast-check draws whole scenarios (workers, lease, handler shape,
 * workload and a fault schedule); each is run for real — real worker processes, PostgreSQL and
 * Toxiproxy, in a fresh database of one environment reused across runs — and judged by every
 * checker with strict causes. The property is that no invariant is violated. On a failure
 * fast-check shrinks the schedule within the same wall-time budget, and the minimal schedule is
 * replayed: if a replay reproduces it, it is the counterexample, written as a scenario file that
 * `leaseproof run` replays; if none does, it is kept as an unconfirmed failure and the search
 * goes on from the next draw.
 *
 * With `sim` the search runs in simulated time against the queue's own SQL on PGlite (hundreds
 * of runs a minute), drawing only the faults the simulation models; shrinking runs there too,
 * and the replays that confirm the minimal schedule are real runs: a simulated failure is a
 * lead, never a reported counterexample until a real run has repeated it.
 */
import { resolve } from 'node:path';
import { selectEnvironment } from '../env/select-env.js';
import { ConfigError, EnvironmentError } from '../errors.js';
import { inEnvironment } from '../run/environment-scope.js';
import { confirmCounterexample, isConfirmed } from './confirm-counterexample.js';
import { realRun } from './real-run.js';
import { recordFailure } from './record-failure.js';
import { searchRound, type SearchState } from './search-round.js';
import type { ExploreOptions, ExploreResult, ExploreRun, UnconfirmedFailure } from './types.js';
import { laneSeeds } from './lane-seeds.js';
import { WHOLE } from '../scale-out/shard.js';
import { scenarioArbitrary, scenarioArbitraryOf } from './scenario-arbitrary.js';
import { poolRun, SIMULATED_SCENARIOS, simRun } from './sim-run.js';
import { SimPool } from '../sim/pglite/sim-pool.js';
import { wallMs } from './wall-clock.js';
import { loadQueueAdapter } from '../libraries/load-adapter.js';
import { SimDatabase } from '../sim/pglite/sim-database.js';
import type { StartedEnvironment } from '../env/types.js';
import type { QueueAdapter } from '../queue/types.js';
import type fc from 'fast-check';
import type { ExploredScenario } from './explored-scenario.js';

/** How a search runs its draws and confirms its failures. */
interface SearchMode {
  run: ExploreRun;
  confirm: ExploreRun;
  arbitrary: fc.Arbitrary<ExploredScenario>;
  simulated: boolean;
}

/** Searches for a scenario that makes `options.queue` violate a lease invariant. */
export async function explore(options: ExploreOptions): Promise<ExploreResult> {
  checkOptions(options);
  if (options.sim === true) return exploreSimulated(options);
  const real = (run: ExploreRun): SearchMode => ({
    run,
    confirm: options.confirm ?? run,
    arbitrary: scenarioArbitrary,
    simulated: false,
  });
  if (options.run) return exploreWith(real(options.run), options);
  if (options.env) return exploreWith(real(realRun(options.env)), options);
  const provider = await selectEnvironment({ ...(options.log && { log: options.log }) });
  return inEnvironment(provider, (env) => exploreWith(real(realRun(env)), options));
}

/**
 * Refuses what `explore --sim` cannot do, with why: a queue that runs its library's own worker
 * loop (the simulation runs leaseproof's loop over an adapter's statements). The CLI calls it
 * before any server starts.
 */
export function refuseUnsimulable(queue: QueueAdapter | undefined): void {
  if (queue?.native !== undefined) {
    throw new ConfigError(
      `explore --sim: queue "${queue.name}" runs its library's own worker loop in a program ` +
        "of its own, which the simulation does not run (it runs leaseproof's loop over an " +
        "adapter's statements); explore it without --sim",
    );
  }
}

/**
 * The search in simulated time: PGlite for the draws and the shrinking, a real environment for
 * the confirming replays (started before the search, stopped after it).
 */
async function exploreSimulated(options: ExploreOptions): Promise<ExploreResult> {
  // The queue is loaded before any server starts: one the simulation cannot run is refused first.
  const source: { run: ExploreRun } | { adapter: QueueAdapter } =
    options.run !== undefined
      ? { run: options.run }
      : { adapter: await loadQueueAdapter(options.queue) };
  refuseUnsimulable('adapter' in source ? source.adapter : undefined);
  const arbitrary = scenarioArbitraryOf(SIMULATED_SCENARIOS);
  const search = async (confirm: ExploreRun): Promise<ExploreResult> => {
    const mode = (run: ExploreRun): SearchMode => ({ run, confirm, arbitrary, simulated: true });
    if ('run' in source) return exploreWith(mode(source.run), options);
    // Lanes side by side need processes of their own: the simulated clock is a process's.
    if ((options.parallel ?? 1) > 1) {
      const pool = await SimPool.start(options.parallel!, options.simBounds);
      try {
        return await exploreWith(mode(poolRun(pool)), options);
      } finally {
        await pool.stop();
      }
    }
    const db = await SimDatabase.start();
    try {
      return await exploreWith(mode(simRun(db, source.adapter, options.simBounds)), options);
    } finally {
      await db.stop();
    }
  };
  if (options.confirm !== undefined) return search(options.confirm);
  const inReal = (env: StartedEnvironment): Promise<ExploreResult> => search(realRun(env));
  if (options.env !== undefined) return inReal(options.env);
  const provider = await selectEnvironment({ ...(options.log && { log: options.log }) });
  return inEnvironment(provider, inReal);
}

function checkOptions({ runs, seed, budgetMs, parallel }: ExploreOptions): void {
  if (!Number.isInteger(runs) || runs < 1) {
    throw new ConfigError(`explore needs runs ≥ 1; got ${runs}`);
  }
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new ConfigError(`explore needs an integer seed in [0, 4294967295]; got ${seed}`);
  }
  if (!(budgetMs > 0)) throw new ConfigError(`explore needs a positive budget; got ${budgetMs}ms`);
  if (parallel !== undefined && !(Number.isInteger(parallel) && parallel >= 1)) {
    throw new ConfigError(`explore needs parallel ≥ 1 (a whole number); got ${parallel}`);
  }
}

/**
 * Searches in rounds. fast-check's `check` ends at its first failure, after shrinking it; a
 * failure no replay reproduces must not end the search, so the next round resumes every lane's
 * seeded stream where it stopped (see `searchRound`). Confirming stays outside the property:
 * inside it, every shrink candidate that failed would be replayed three times.
 */
async function exploreWith(mode: SearchMode, options: ExploreOptions): Promise<ExploreResult> {
  const { run, confirm } = mode;
  const foundIn = mode.simulated ? 'simulation' : 'real';
  const started = wallMs();
  const startedAt = new Date();
  const elapsed = (): number => Math.round(wallMs() - started);
  const state: SearchState = {
    queue: options.queue,
    seed: options.seed,
    budgetMs: options.budgetMs,
    run,
    arbitrary: mode.arbitrary,
    elapsed,
    progress: {
      phase: 'search',
      simulated: mode.simulated,
      runsDone: 0,
      failures: 0,
      shrinks: 0,
      unconfirmed: 0,
      cutShort: 0,
      elapsedMs: 0,
    },
    onProgress: options.onProgress,
    violatedBy: new Map(),
    budgetSpent: false,
    harnessError: undefined,
  };
  const outDir = options.outDir ?? resolve('reports', 'counterexamples');
  const lanes = laneSeeds(
    options.seed,
    options.runs,
    options.parallel ?? 1,
    options.shard ?? WHOLE,
  );
  const start = lanes.map(() => 0);
  const unconfirmed: UnconfirmedFailure[] = [];

  for (;;) {
    const { failure, passed } = await searchRound(state, lanes, start);
    // A harness error while shrinking only cuts shrinking short: the smallest failure so far
    // is still confirmed and reported below.
    if (state.harnessError !== undefined && failure === undefined) {
      throw harnessFailure(state, options.seed, unconfirmed);
    }
    if (failure === undefined) {
      return {
        failed: false,
        runsDone: state.progress.runsDone,
        interrupted: state.budgetSpent,
        elapsedMs: elapsed(),
        unconfirmed,
      };
    }
    const { minimal } = failure;
    const violated = state.violatedBy.get(JSON.stringify(minimal)) ?? [];
    const laneSeed = lanes[failure.lane]!.seed;
    // A simulated failure is confirmed on real runs; a real one on real runs of its own kind.
    const confirmed = await confirmCounterexample(confirm, options.queue, minimal, violated);
    const reproduced = isConfirmed(confirmed);
    const { file, firstFailureReport } = await recordFailure(outDir, {
      queue: options.queue,
      laneSeed,
      failure,
      violated,
      confirmed,
      unconfirmed: !reproduced,
      startedAt,
      foundIn,
    });
    if (reproduced) {
      return {
        failed: true,
        file,
        firstFailureReport,
        violated,
        replayCommand: `leaseproof run ${file} --queue ${options.queue}`,
        shrinks: failure.shrinks,
        runsDone: state.progress.runsDone,
        firstFailureMs: failure.firstFailureMs,
        elapsedMs: elapsed(),
        scenario: confirmed.scenario,
        minimal,
        reproduced: confirmed.reproduced,
        replays: confirmed.replays,
        counterexamplePath: failure.path,
        laneSeed,
        foundIn,
        unconfirmed,
      };
    }
    const found: UnconfirmedFailure = {
      file,
      firstFailureReport,
      violated,
      replays: confirmed.replays,
      laneSeed,
      counterexamplePath: failure.path,
      foundIn,
    };
    unconfirmed.push(found);
    state.progress.unconfirmed = unconfirmed.length;
    options.onUnconfirmed?.(found);
    options.onProgress?.({ ...state.progress });
    if (state.harnessError !== undefined) throw harnessFailure(state, options.seed, unconfirmed);
    if (state.budgetSpent) {
      return {
        failed: false,
        runsDone: state.progress.runsDone,
        interrupted: true,
        elapsedMs: elapsed(),
        unconfirmed,
      };
    }
    // The lane that failed resumes past its failing draw; the others past the draws they ran.
    for (const [i, n] of passed.entries()) start[i] = start[i]! + n;
    start[failure.lane] = failure.drawIndex + 1;
  }
}

function harnessFailure(
  state: SearchState,
  seed: number,
  unconfirmed: UnconfirmedFailure[],
): EnvironmentError {
  const { error, drawn, after } = state.harnessError!;
  return new EnvironmentError(
    `explore stopped after ${after} run(s): the next run failed in the harness, ` +
      `not in the queue (seed ${seed}, drawn scenario ${drawn})` +
      (unconfirmed.length === 0
        ? ''
        : `; unconfirmed failures before it: ${unconfirmed.map((u) => u.firstFailureReport).join(', ')}`),
    { cause: error },
  );
}
