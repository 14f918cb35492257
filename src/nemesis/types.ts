/**
 * The nemesis: faults behind one interface. A fault starts, and heals — on its own after its
 * duration, or when the run heals everything. Every start and end is recorded (controller
 * time; the history moves it onto the database clock), with the fault's target, so that a
 * checker can say which fault was active when something went wrong.
 */
import type { StartedEnvironment } from '../env/types.js';
import type { FaultKind } from '../history/types.js';
import type { WorkerPool } from '../pool/worker-pool.js';

/** A fault start or end, as the nemesis records it (controller clock, ms since epoch). */
export interface FaultRecord {
  /** start or end. */
  phase: 'start' | 'end';
  /** Which fault. */
  fault: FaultKind;
  /** A worker id, or `db`. */
  target: string;
  /** Pairs a start with its end. */
  id: string;
  /** When, on the controller's clock. */
  at: number;
  /** Parameters, for reports. */
  detail?: Record<string, unknown>;
}

/** What a fault acts on. */
export interface NemesisContext {
  /** The environment (database server, proxies). */
  env: StartedEnvironment;
  /** The workers. */
  pool: WorkerPool;
  /** Records a fault start or end. */
  record(record: FaultRecord): void;
}

/** One fault on one target. */
export interface Fault {
  /** Which kind of fault. */
  readonly kind: FaultKind;
  /** A worker id, or `db`. */
  readonly target: string;
  /** Parameters, for reports. */
  readonly detail: Record<string, unknown>;
  /** Injects it. */
  start(ctx: NemesisContext): Promise<void>;
  /** Heals it; idempotent, and a no-op when it was never started. */
  heal(ctx: NemesisContext): Promise<void>;
}

/** A fault at a time, healing itself after `forMs` (or when the run heals everything). */
export interface TimedFault {
  /** Milliseconds after the workers are ready. */
  atMs: number;
  /** How long it lasts; absent: until the run heals everything. */
  forMs?: number;
  /** The fault: single-use, started and healed once. */
  fault: Fault;
}
