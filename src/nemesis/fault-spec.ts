/**
 * A fault as a scenario states it, with times in milliseconds and workers by id (`w2`): plain
 * data, what a run plan carries, and the input of `createFault`, which the executor calls anew
 * for every run. The scenario loader produces these from YAML; a test or a library user may
 * write them directly.
 */
import type { DbRestartMode } from './db-restart-fault.js';
import type { PartitionDirection, PartitionMode } from './partition-fault.js';
import type { ToxicDirection } from './toxic-fault.js';

/** When a fault starts, relative to the moment the workers are ready. */
interface Timed {
  /** Milliseconds after the workers are ready. */
  atMs: number;
}

/** How long a fault lasts before it heals itself. */
interface Lasting extends Timed {
  /** Milliseconds; absent: until the run heals everything once the timeline is done. */
  forMs?: number;
}

/** A network partition of one or more workers (one fault per worker). */
export interface PartitionSpec extends Lasting {
  kind: 'partition';
  /** Worker ids, `w1`…; each is cut off on its own proxy. */
  workers: string[];
  /** blackhole, reset or down. */
  mode: PartitionMode;
  /** Which stream is cut (ignored by `down`). */
  direction: PartitionDirection;
}

/** Added latency (± jitter) on the path of one or more workers. */
export interface LatencySpec extends Lasting {
  kind: 'latency';
  /** Worker ids. */
  workers: string[];
  /** Added delay per chunk of bytes. */
  latencyMs: number;
  /** ± variation of the delay. */
  jitterMs: number;
  /** Which stream is delayed. */
  direction: ToxicDirection;
}

/** A bandwidth limit on the path of one or more workers. */
export interface BandwidthSpec extends Lasting {
  kind: 'bandwidth';
  /** Worker ids. */
  workers: string[];
  /** Kilobytes per second. */
  rateKBps: number;
  /** Which stream is throttled. */
  direction: ToxicDirection;
}

/** Byte streams of one or more workers cut into delayed slices. */
export interface SlicerSpec extends Lasting {
  kind: 'slicer';
  /** Worker ids. */
  workers: string[];
  /** Average slice, in bytes. */
  averageSize: number;
  /** Variation of a slice's size, in bytes. */
  sizeVariation: number;
  /** Pause between slices (fractions of a ms allowed). */
  delayMs: number;
  /** Which stream is sliced. */
  direction: ToxicDirection;
}

/** SIGSTOP, then SIGCONT after `forMs`. */
export interface PauseSpec extends Lasting {
  kind: 'pause';
  /** Worker id. */
  worker: string;
}

/** SIGKILL; a fresh worker with the same id after `restartAfterMs`, if given. */
export interface CrashSpec extends Timed {
  kind: 'crash';
  /** Worker id. */
  worker: string;
  /** When a fresh worker replaces it; absent: it stays dead. */
  restartAfterMs?: number;
}

/**
 * SIGTERM: the worker's graceful stop, cancelling its handler after `timeoutMs`; a fresh worker
 * with the same id `restartAfterMs` after the old one exited, if given.
 */
export interface StopSpec extends Timed {
  kind: 'stop';
  /** Worker id. */
  worker: string;
  /** How long the worker lets its handler finish before it cancels it and exits. */
  timeoutMs: number;
  /** When a fresh worker replaces it, after its exit; absent: it stays down. */
  restartAfterMs?: number;
}

/** A skewed `Date`: an offset, a drift, and optionally a later step. */
export interface ClockSpec extends Lasting {
  kind: 'clock';
  /** Worker id. */
  worker: string;
  /** Signed: positive runs ahead. */
  offsetMs: number;
  /** Parts per million; positive runs fast. */
  driftPpm?: number;
  /** A step of the clock by `byMs`, `afterMs` after the fault starts (an NTP step, a VM resume). */
  jump?: { afterMs: number; byMs: number };
}

/** The event loop blocked for `forMs`. */
export interface StallSpec extends Timed {
  kind: 'stall';
  /** Worker id. */
  worker: string;
  /** How long the event loop is blocked. */
  forMs: number;
}

/** The database restarted, or every connection to it dropped, for `forMs` (default 0). */
export interface DbRestartSpec extends Lasting {
  kind: 'db-restart';
  /** restart the server, or terminate every backend of the run databases. */
  mode: DbRestartMode;
}

/** Any fault a scenario can schedule. */
export type FaultSpec =
  | PartitionSpec
  | LatencySpec
  | BandwidthSpec
  | SlicerSpec
  | PauseSpec
  | CrashSpec
  | StopSpec
  | ClockSpec
  | StallSpec
  | DbRestartSpec;
