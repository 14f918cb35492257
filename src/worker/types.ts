/**
 * What passes between the controller and a worker process: the worker's configuration, the
 * control messages the nemesis sends it, and the events it streams back.
 *
 * Worker event times are `performance.timeOrigin + performance.now()`: monotonic, and not the
 * worker's `Date`, which the clock-skew nemesis corrupts. Verdicts use the database's clock
 * (the audit trigger and the effects table); these times order a worker's own events.
 */
import type { LeaseSettings } from '../queue/types.js';

/** One unit of simulated work. */
export interface UnitPlan {
  /** How long it takes, in milliseconds. */
  ms: number;
  /** `true`: a synchronous busy loop that blocks the event loop; `false`: an async wait. */
  sync: boolean;
  /** Whether the unit performs the effect that must not happen twice ("send the mail"). */
  effect: boolean;
}

/** The handler plan carried in a job's payload (`payload.units`). */
export interface HandlerPlan {
  /** Units, done in order; the abort signal is checked between them. */
  units: UnitPlan[];
  /**
   * Commit a cursor after each unit (`payload.checkpoint`), so that a later claim resumes from
   * the last committed unit instead of the beginning: a long job in lease-sized pieces.
   */
  checkpoint?: boolean;
  /**
   * The handler never checks its abort signal (`payload.ignoresAbort`): cancelled, it runs on to
   * its end, as a handler that ignores its context does.
   */
  ignoresAbort?: boolean;
  /**
   * The first this-many attempts of the job throw after their last unit (`payload.failAttempts`):
   * a transient error, so the worker reports a failure and the queue retries.
   */
  failAttempts: number;
}

/** A worker's `Date` skew: an offset, plus a drift that grows with (monotonic) time. */
export interface ClockSkew {
  /** Milliseconds added to the real time. */
  offsetMs: number;
  /** Drift in parts per million (1000 ppm = 1 ms per second). */
  driftPpm?: number;
}

/** Everything a worker process needs, sent as the first IPC message. */
export interface WorkerConfig {
  /** The worker id; also `application_name` of every connection it opens. */
  workerId: string;
  /** A built-in queue name or a path to an adapter module. */
  queue: string;
  /** The run database, through this worker's own Toxiproxy proxy. */
  databaseUrl: string;
  /**
   * The run database directly, for recording effects: the side effect of a handler happens
   * whether or not the worker can reach its queue, so its record must not depend on the proxy.
   */
  effectsUrl: string;
  /** Lease settings. */
  lease: LeaseSettings;
  /**
   * A library's own settings by its own names, as this run uses them (ms for a duration, after
   * the run's time factor): what a native program configures its library with. Absent for a
   * queue that declares none. An optional field: wire format 1 (readers ignore it).
   */
  settings?: Record<string, number>;
  /** Initial clock skew. */
  clock?: ClockSkew | undefined;
  /**
   * On SIGTERM, how long the worker lets the handler it holds finish before it cancels it and
   * exits (a scenario's `stop` timeout); absent: it waits for the handler however long it takes.
   */
  shutdownTimeoutMs?: number | undefined;
  /** Client-side bound on one queue statement (default: the lease duration). */
  statementTimeoutMs?: number | undefined;
  /** How the starvation probes tick and what they report (default `DEFAULT_STARVATION`). */
  starvation?: { periodMs: number; thresholdMs: number } | undefined;
}

/**
 * Controller → worker. Every message is a JSON value (see `wire-format.ts`); `config` comes
 * first, with the wire-format version the controller speaks.
 */
export type ControlMessage =
  | { type: 'config'; wireFormat: number; config: WorkerConfig }
  | { type: 'clock'; skew: ClockSkew }
  | { type: 'stall'; ms: number }
  | { type: 'report-clock' }
  /** Start claiming: sent to every worker of a pool at once, after all of them are ready. */
  | { type: 'go' };

/** Outcome of an operation, as Jepsen has it: `info` = unknown (e.g. a timeout). */
export type Outcome = 'ok' | 'fail' | 'info';

/** Something a worker did or saw. */
export type WorkerEvent =
  /** Loaded and connected; `wireFormat` echoes the version this worker speaks. */
  | {
      kind: 'ready';
      at: number;
      pid: number;
      wireFormat: number;
      /**
       * The worker's loop sets itself up after `go` (a library's own loop in a native program):
       * it is at work from its first claim, not from `ready`.
       */
      startsOnGo?: boolean;
    }
  | {
      kind: 'claim';
      at: number;
      /** When the claim statement was sent (a claim is reported only once answered). */
      sentAt?: number;
      outcome: Outcome;
      jobId?: string;
      token?: string;
      attempt?: number;
      error?: string;
      /** Backend pid of the connection the claim ran on (see `ResilientConnection.backendPid`). */
      pid?: number;
    }
  | {
      kind: 'extend' | 'ack' | 'fail' | 'checkpoint';
      at: number;
      phase: 'invoke' | 'complete';
      outcome?: Outcome;
      jobId: string;
      token: string;
      error?: string;
      /** On a complete: the backend pid of the connection the call ran on. */
      pid?: number;
    }
  | { kind: 'lost'; at: number; jobId: string; token: string; reason: string }
  | { kind: 'abort'; at: number; jobId: string; token: string; unit: number }
  /**
   * A handler that ignores its cancellation passed a cancellation point (before unit `unit`)
   * with its abort signal set, and went on: the worker did cancel it.
   */
  | { kind: 'abort-ignored'; at: number; jobId: string; token: string; unit: number }
  | { kind: 'unit'; at: number; jobId: string; token: string; unit: number; effect: boolean }
  | { kind: 'effect'; at: number; jobId: string; token: string; unit: number; recorded: boolean }
  | { kind: 'stall'; at: number; ms: number }
  /** The queue connection was re-established: the worker can reach the database again. */
  | { kind: 'connect'; at: number }
  /**
   * A probe tick that found its thread kept from running for `ms` (its run-queue wait, capped
   * by how late the tick was); `at` is when the tick finally ran, the end of that window.
   */
  | {
      kind: 'starved';
      at: number;
      thread: 'main' | 'heartbeat';
      ms: number;
      lateMs: number;
      waitMs?: number;
    }
  | { kind: 'clock'; at: number; workerNow: number; realNow: number }
  | { kind: 'error'; at: number; message: string }
  | { kind: 'exit'; at: number; reason: string };

/** Worker → controller: the events of one turn of the worker's event loop, in order. */
export interface EventMessage {
  type: 'events';
  events: WorkerEvent[];
}

/** Monotonic wall-time in ms: immune to the worker's skewed `Date`. */
export function monotonicNow(): number {
  return performance.timeOrigin + performance.now();
}
