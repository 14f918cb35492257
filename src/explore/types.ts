/** The contract of `explore`: its options, its progress reports and its result. */
import type { StartedEnvironment } from '../env/types.js';
import type { ScenarioRun } from '../report/types.js';
import type { Scenario } from '../scenario/scenario-types.js';
import type { ExploredScenario } from './explored-scenario.js';
import type { Shard } from '../scale-out/shard.js';
import type { SimBounds } from '../sim/pglite/sim-bounds.js';

/**
 * Runs one scenario against `queue` and judges it with strict causes: the one place explore
 * touches real servers (see `realRun`), and the seam a test replaces to drive the search's
 * decisions without them.
 */
export type ExploreRun = (scenario: Scenario, queue: string) => Promise<ScenarioRun>;

/**
 * A failure that did not reproduce on any confirming replay: kept as evidence, never reported
 * as a counterexample (twice such a failure was the queue's own background sweep running late
 * on a loaded machine). Its files are under `<outDir>/unconfirmed/`.
 */
export interface UnconfirmedFailure {
  /** The shrunk schedule, as a scenario file that `leaseproof run` replays. */
  file: string;
  /** The first failing run's report folder (history, timeline, verdict), beside `file`. */
  firstFailureReport: string;
  /** Checkers the first failing run of the shrunk schedule violated. */
  violated: string[];
  /** Confirming replays run (none reproduced). */
  replays: number;
  /** The seed of the search that failed. */
  laneSeed: number;
  /** fast-check's path to the shrunk schedule. */
  counterexamplePath: string;
  /** Where the failing run ran: for real, or in simulated time (its replays are real). */
  foundIn: FoundIn;
}

/**
 * Where a failure was found: on a real run, or on a simulated one (`explore --sim`), whose
 * confirming replays are real runs all the same.
 */
export type FoundIn = 'real' | 'simulation';

/** Where an exploration is. */
export interface ExploreProgress {
  /** `search` until the first failure, then `shrink`. */
  phase: 'search' | 'shrink';
  /** Real runs done so far (search and shrink). */
  runsDone: number;
  /** Runs that violated an invariant. */
  failures: number;
  /** Whether the search runs in simulated time (`runsDone` then counts simulated runs). */
  simulated: boolean;
  /** Property calls after the first failure (fast-check's shrink candidates tried). */
  shrinks: number;
  /** Milliseconds since the exploration started. */
  elapsedMs: number;
  /** Failures that did not reproduce on their confirming replays; the search went on. */
  unconfirmed: number;
  /** Simulated runs a bound cut short: unknown, with `cutShortCause`; the search went on. */
  cutShort: number;
  /** The cause of the last run a bound cut short. */
  cutShortCause?: string;
  /** The last run's verdict and the checkers it violated, if any. */
  last?: { valid: 'valid' | 'invalid' | 'unknown'; violated: string[]; durationMs: number };
}

/** What to explore. */
export interface ExploreOptions {
  /** Built-in queue name or adapter path. */
  queue: string;
  /** Scenarios to try before giving up (fast-check's `numRuns`). */
  runs: number;
  /** fast-check seed: the same seed draws the same scenarios. */
  seed: number;
  /** Wall-time budget of the whole exploration, search and shrinking, in ms. */
  budgetMs: number;
  /** A started environment to reuse; absent: one is selected, started and stopped. */
  env?: StartedEnvironment;
  /**
   * How a scenario is run and judged (default: for real in `env`, or in simulated time with
   * `sim`). Given without `sim`, no environment is started.
   */
  run?: ExploreRun;
  /**
   * Search in simulated time against the queue's own SQL on PGlite, drawing only the faults the
   * simulation models; each failure is confirmed on real runs (PostgreSQL, Toxiproxy, worker
   * processes) before it is reported. One search at a time: the simulated clock is the process's.
   */
  sim?: boolean;
  /** Each simulated run's bounds (default `DEFAULT_SIM_BOUNDS`): a run past one is unknown. */
  simBounds?: Partial<SimBounds>;
  /**
   * How a failure is confirmed (default: `run` itself; with `sim`, a real run in `env`). A test
   * gives its own to drive the decisions without servers.
   */
  confirm?: ExploreRun;
  /** Where counterexamples are written (default `reports/counterexamples`). */
  outDir?: string;
  /** Called after every run. */
  onProgress?: (progress: ExploreProgress) => void;
  /** Called when a failure did not reproduce on its replays, before the search goes on. */
  onUnconfirmed?: (failure: UnconfirmedFailure) => void;
  /** Environment log lines (default: none). */
  log?: (line: string) => void;
  /**
   * Searches side by side (default 1), each drawing from its own seed (see `laneSeeds`) in its
   * own databases and proxies of the one environment. The first to fail shrinks; the others
   * stop.
   */
  parallel?: number;
  /** This machine's part of a search split over a CI matrix: its own lane seeds, its share of runs. */
  shard?: Shard;
}

/** The outcome of an exploration: a data value, never thrown. */
export type ExploreResult =
  | {
      failed: false;
      /** Runs done. */
      runsDone: number;
      /** Whether the budget ran out before `runs`. */
      interrupted: boolean;
      /** Wall time, ms. */
      elapsedMs: number;
      /** Failures that did not reproduce on their replays: evidence, not a counterexample. */
      unconfirmed: UnconfirmedFailure[];
    }
  | {
      failed: true;
      /** The counterexample scenario file. */
      file: string;
      /** The first failing run's report folder (history, timeline, verdict), beside `file`. */
      firstFailureReport: string;
      /** Checkers the minimal counterexample violated. */
      violated: string[];
      /** `leaseproof run <file> --queue <queue>`. */
      replayCommand: string;
      /** Property calls after the first failure. */
      shrinks: number;
      /** Runs done, search and shrink. */
      runsDone: number;
      /** Wall time to the first failure of the schedule written to `file`, ms. */
      firstFailureMs: number;
      /** Wall time, ms. */
      elapsedMs: number;
      /** The schedule written to `file`: the minimal one, or it with faults held two leases. */
      scenario: ExploredScenario;
      /** The minimal counterexample fast-check shrank to. */
      minimal: ExploredScenario;
      /**
       * Confirming replays of `scenario` that violated one of `violated`, out of `replays`: at
       * least one (a schedule that reproduced on none is in `unconfirmed` instead).
       */
      reproduced: number;
      /** Confirming replays run. */
      replays: number;
      /** fast-check's path to it (replay with `{ seed: laneSeed, path }`). */
      counterexamplePath: string;
      /** The seed of the search that failed (the given seed, unless parallel or sharded). */
      laneSeed: number;
      /** Where the first failing run ran; `reproduced` counts real replays either way. */
      foundIn: FoundIn;
      /** Failures before it that did not reproduce on their replays. */
      unconfirmed: UnconfirmedFailure[];
    };
