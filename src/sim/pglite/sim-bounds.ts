/**
 * The bounds every simulated run is held to, in wall time and in simulated steps: an adapter
 * whose statement waits or loops inside the database must not hang a search (issue 38). A run
 * that passes one ends there and is `unknown`, with its cause (`SimulationBoundError`); the
 * search, the matrix and `simulate` go on to the next.
 */
import { LeaseproofError } from '../../errors.js';
import type { History } from '../../history/types.js';

/** How far one simulated run may go. */
export interface SimBounds {
  /** Wall time, ms, from the run's start (its setup included). */
  wallMs: number;
  /**
   * Simulated steps: timers the run fired, and milliseconds the database's own waits advanced
   * the clock (a `pg_sleep` of 1 s is 1,000 steps).
   */
  steps: number;
}

/**
 * The defaults: far above any run of the shipped scenarios or a drawn one (a curated run fires
 * thousands of timers and takes a second or two of wall time, ten times that on a loaded
 * machine), far below a hang. A `tune` run of thousands of jobs sets its own.
 */
export const DEFAULT_SIM_BOUNDS: Readonly<SimBounds> = Object.freeze({
  wallMs: 60_000,
  steps: 2_000_000,
});

/** A simulated run cut short by one of its bounds: its verdict is `unknown`, for this cause. */
export class SimulationBoundError extends LeaseproofError {
  constructor(
    message: string,
    /** What the run recorded before the bound cut it (its audit unread if the database was cut). */
    readonly history?: History,
  ) {
    super('LEASEPROOF_SIM_BOUND', message);
  }
}
