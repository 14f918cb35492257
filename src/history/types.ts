/**
 * The history of a run: one ordered list of events, every time on the database's clock.
 *
 * Ground truth comes from the database itself — `audit` events, written by a trigger on the
 * queue's lease table inside the server, and `effect` events, written by the handlers over a
 * path faults do not cut. `worker` events are what the workers saw and claimed (Jepsen's
 * invoke / ok / fail / info); `nemesis` events are the faults. Stored as JSONL: a header line,
 * then one event per line, ordered by `t`.
 *
 * Times are milliseconds since the epoch on the database clock (fractions allowed). Worker and
 * nemesis events are timed on the controller's host and moved onto the database clock with the
 * offset measured at the start of the run (`HistoryHeader.clockOffsetMs`).
 */
import type { FaultKind } from '../faults/fault-kinds.js';
import type { LeaseSettings, RescaledConstant } from '../queue/types.js';
import type { SettledSettings } from '../queue/library-settings.js';

/** The version of this schema; a reader refuses histories of another major version. */
export const HISTORY_VERSION = 1;

/** Lease state of a job row as the audit description maps it. */
export type LeaseState = 'pending' | 'held' | 'completed' | 'failed' | 'dead';

/** The first line of a history file. */
export interface HistoryHeader {
  type: 'header';
  /** `HISTORY_VERSION`. */
  version: number;
  /** The scenario's name (or a test's). */
  scenario: string;
  /** The seed all randomness came from. */
  seed: number;
  /** The queue under test. */
  queue: string;
  /** Versions of the parts. */
  versions: { leaseproof: string; postgres: string; toxiproxy: string; node: string };
  /** The lease settings of the run. */
  lease: LeaseSettings;
  /** Workers in the run, by id. */
  workers: string[];
  /**
   * Controller clock minus database clock, in ms, measured at the start of the run (the
   * midpoint of a round trip). Controller-side times t_c become t_c − clockOffsetMs.
   */
  clockOffsetMs: number;
  /** Half the round trip of that measurement: how uncertain the offset is. */
  clockUncertaintyMs: number;
  /** When the run started (database clock). */
  startedAt: number;
  /** Whether the scenario allows dead-lettered jobs to count as done (no-lost-job). */
  allowDeadLetter?: boolean;
  /**
   * The scenario's `failAttempts`: the first this-many attempts of every job fail by plan.
   * Absent: none do.
   */
  failAttempts?: number;
  /**
   * How the queue took the scenario's lease, when not plainly: a lease rounded or a library
   * constant rescaled (`lease` above is then what the run used), no lease extension, a
   * background sweep the harness ran. Absent: the scenario's lease as it is, extended by
   * heartbeats, no sweep.
   */
  queueTerms?: QueueTermsRecord;
}

/** See `HistoryHeader.queueTerms`. */
export interface QueueTermsRecord {
  /** The scenario's lease settings, before the queue's terms. */
  requestedLease: LeaseSettings;
  /** One sentence per change (rounding, rescaling). */
  notes: string[];
  /** Library constants the run replaced (time compression), each with its statement. */
  rescaled: RescaledConstant[];
  /**
   * The library's own settings as the run used them: each by its own name, its library value
   * (default or stated), its run value under the one time factor, and any floor it was held at.
   */
  settings?: SettledSettings;
  /**
   * Whether the queue extends leases; false: no heartbeat — I9 is n/a, I7 is judged from the
   * deadline, and I3 is n/a for jobs whose work outlasts one lease.
   */
  extendsLease: boolean;
  /**
   * The longest the library lets one attempt run before it cuts it, when not the lease
   * (`LeaseTerms.attemptLimitMs`): without lease extension, I3 is n/a for a job whose work
   * outlasts it. Absent: the lease.
   */
  attemptLimitMs?: number;
  /** The library's background sweep the harness ran, and how often. */
  maintenance?: { description: string; intervalMs: number };
  /**
   * `false`: the queue declares no retries (`QueueAdapter.retries`), so a job whose attempt
   * failed by plan stays failed. Absent: the queue retries.
   */
  retries?: false;
  /**
   * Why the run's clock skew never reached the queue's code (a worker program without
   * libfaketime, `QueueAdapter.limits`): the run cannot show the queue survives a skewed clock,
   * so no checker calls it valid — `unknown`, with this as why. Absent: the skew reached it.
   */
  unskewedClock?: string;
  /**
   * The lease is kept per worker, not per job (`AuditDescription.liveness`: procrastinate's
   * worker heartbeat row): a job fetched joins its worker's current window, so its first
   * deadline is the worker's last heartbeat + lease, not the fetch + lease. Names the table.
   */
  perWorkerLease?: string;
  /**
   * The library's usage contract rules out blocking the handler's event loop, in its words
   * (`QueueAdapter.contract.blockingLoop`): I9 reports an expiry after a blocked loop as the
   * usage breaking it, a warning.
   */
  blockingLoopContract?: string;
  /**
   * The queue promises the fenced contract, not a deadline fence, in its words
   * (`QueueAdapter.contract.fencedOnly`): I1 judges it fenced and warns of strict-only writes.
   */
  fencedOnly?: string;
}

/** A row's lease as the audit trigger saw it, before or after a change. */
export interface LeaseImage {
  /** Who holds the lease (claim token or worker id); null when nobody does. */
  holder: string | null;
  /** The deadline (ms, database clock); null when not held. */
  deadline: number | null;
  /** The job's lease state. */
  state: LeaseState;
}

/** A committed change of the lease table (the truth). */
export interface AuditEvent {
  type: 'audit';
  /** `clock_timestamp()` inside the trigger. */
  t: number;
  /** `statement_timestamp()`: the database time of the statement (what `now()` is in autocommit). */
  stmtT: number;
  /** `now()`: the database time of the transaction. */
  txnT: number;
  /** Transaction id (`txid_current()`), to group changes of one transaction. */
  xid: string;
  /** `application_name` of the connection: the worker id, or the harness's. */
  app: string;
  /**
   * `pg_backend_pid()` of the connection that made the change. Absent in histories recorded
   * before the audit had it: checkers then match a worker's calls to its writes by time.
   */
  pid?: number;
  /** The kind of change. */
  op: 'insert' | 'update' | 'delete';
  /** The job id. */
  job: string;
  /** Before the change (null for an insert). */
  old: LeaseImage | null;
  /** After the change (null for a delete). */
  new: LeaseImage | null;
  /**
   * Present on the record of a heartbeat in another table (`AuditDescription.liveness`): the
   * job row did not change; its holder's liveness row moved its deadline. Read in the
   * heartbeat's snapshot, so it counts only for a claim still held by that holder.
   */
  liveness?: true;
}

/** A side effect a handler performed (the truth: written the moment it happened). */
export interface EffectEvent {
  type: 'effect';
  /** `clock_timestamp()` of the insert. */
  t: number;
  /** Which worker. */
  worker: string;
  /** Which job. */
  job: string;
  /** Under which claim (token). */
  token: string;
  /** Which unit of the handler. */
  unit: number;
}

/** Something a worker reported (what it saw; not the truth). */
export interface WorkerHistoryEvent {
  type: 'worker';
  /** When (database clock, converted from the worker's monotonic time). */
  t: number;
  /** Which worker. */
  worker: string;
  /** What: claim, extend, ack, fail, checkpoint, lost, abort, unit, … */
  kind: string;
  /** invoke / complete for operations. */
  phase?: 'invoke' | 'complete';
  /** ok / fail / info for completed operations. */
  outcome?: 'ok' | 'fail' | 'info';
  /** The job, where there is one. */
  job?: string;
  /** The claim token, where there is one. */
  token?: string;
  /** The unit index, for unit / abort events. */
  unit?: number;
  /** A reason or error message. */
  detail?: string;
  /**
   * For a `claim`: when its statement was sent (database clock); it is reported once answered.
   * For a `sweep`: when the pass started.
   */
  invokedT?: number;
  /**
   * For the completion of a claim, extend, ack, fail or checkpoint: the backend pid of the
   * connection the call ran on (its last statement's), when the worker reports it. The call's
   * writes are the audit rows with this `pid`.
   */
  pid?: number;
  /** For `starved` events: which thread of the worker was kept from running. */
  thread?: 'main' | 'heartbeat';
  /** For `starved` events: for how long, ms, ending at `t`; for a `sweep`, how late it started. */
  ms?: number;
  /**
   * On `ready`: the worker's loop does its own set-up after `go` (a library's worker loop in a
   * native program), so it is at work from its first claim, not from `ready`.
   */
  startsOnGo?: true;
}

export type { FaultKind };

/** A fault starting or ending. */
export interface NemesisEvent {
  type: 'nemesis';
  /** When (database clock). */
  t: number;
  /** start or end. */
  phase: 'start' | 'end';
  /** Which fault. */
  fault: FaultKind;
  /** A worker id, or `db` for the database. */
  target: string;
  /** Pairs a start with its end. */
  id: string;
  /** The fault's parameters (mode, direction, durations), for reports. */
  detail?: Record<string, unknown>;
}

/** What the workload put into a job: its handler plan, in brief. */
export interface JobEvent {
  type: 'job';
  /** When it was enqueued (database clock). */
  t: number;
  /** The job id. */
  job: string;
  /** Number of units. */
  units: number;
  /** The longest unit, ms (the watchdog bound of bounded-zombie uses it). */
  maxUnitMs: number;
  /**
   * All its units together, ms: the work one claim must hold its lease through (no-lost-job
   * asks it of a queue without lease extension). Absent from histories recorded before it was.
   */
  totalMs?: number;
  /** Whether some unit is synchronous (it blocks its thread); absent: none is, or not recorded. */
  blocks?: true;
}

/** The last line of a complete history: the run ended and was read to the end. */
export interface EndEvent {
  type: 'end';
  /** When (database clock). */
  t: number;
  /** Whether every job reached a terminal state before the drain timeout. */
  drained: boolean;
}

/** Any event of a history. */
export type HistoryEvent =
  AuditEvent | EffectEvent | WorkerHistoryEvent | NemesisEvent | JobEvent | EndEvent;

/** A whole history. */
export interface History {
  header: HistoryHeader;
  /** Ordered by `t`. */
  events: HistoryEvent[];
}
