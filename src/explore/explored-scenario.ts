/**
 * The shape of a generated scenario, before it becomes a scenario file: every time relative to
 * the lease (in permille), so that shrinking an integer shortens a duration towards the lease,
 * and workers numbered from 1 (faults only ever name worker 1 or 2, which every run has).
 */

/** A fault as drawn: its kind, when it starts, which worker, and its size. */
export type DrawnFault =
  | { kind: 'pause'; atMs: number; worker: number; forPermille: number }
  | {
      kind: 'partition';
      atMs: number;
      worker: number;
      direction: 'both' | 'upstream';
      mode: 'blackhole' | 'reset' | 'down';
      forPermille: number;
    }
  | {
      kind: 'latency';
      atMs: number;
      worker: number;
      latencyPermille: number;
      forPermille: number;
    }
  | { kind: 'stall'; atMs: number; worker: number; forPermille: number }
  | { kind: 'clock'; atMs: number; worker: number; offsetSeconds: number }
  | { kind: 'crash'; atMs: number; worker: number; restartAfterPermille: number };

/** What each job's handler does. */
export interface DrawnHandler {
  /** Units per job. */
  units: number;
  /** Each unit's duration, in permille of the lease. */
  unitPermille: number;
  /** Units block the event loop. */
  sync: boolean;
}

/** A whole generated scenario. */
export interface ExploredScenario {
  /** Worker processes (2–4). */
  workers: number;
  /** Lease duration in ms; the heartbeat is a quarter of it, extensions move it by as much. */
  leaseMs: number;
  /** Idle poll interval in ms. */
  pollMs: number;
  /** Jobs enqueued before the workers start. */
  jobs: number;
  /** The handler of every job (effect on every unit). */
  handler: DrawnHandler;
  /** The fault timeline (1–3 faults). */
  faults: DrawnFault[];
}

/** `permille` of the lease, in whole milliseconds. */
export const ofLease = (scenario: ExploredScenario, permille: number): number =>
  Math.round((scenario.leaseMs * permille) / 1000);
