/**
 * The queue adapter contract: how leaseproof drives a queue under test.
 *
 * A queue is a set of SQL primitives — claim, extend, ack, fail, and optionally checkpoint —
 * run by worker processes over their own connections, plus an audit description that tells the
 * harness where the lease lives in the database so it can record the truth with a trigger
 * instead of trusting what the adapter reports. An adapter never keeps state between calls:
 * every call may come from another worker process, over a connection that a fault may cut.
 */
import type { LibrarySettingsSpec, SettledSettings } from './library-settings.js';

/** The smallest SQL client an adapter needs; a `pg.Client` or `pg.PoolClient` is one. */
export interface SqlClient {
  /** Runs one statement with `$1…` parameters. */
  query<R extends Record<string, unknown> = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
  ): Promise<{ rows: R[]; rowCount: number | null }>;
}

/** Lease settings of a run, in milliseconds. The queue turns them into SQL intervals. */
export interface LeaseSettings {
  /** How long a claim is valid after a grant or extension (the visibility timeout). */
  durationMs: number;
  /** How often the worker's heartbeat tries to extend. */
  heartbeatMs: number;
  /** How far each successful extension moves the deadline, from the database's `now()`. */
  extendByMs: number;
  /** How long an idle worker waits between claim attempts. */
  pollMs: number;
}

/** What a worker tells its adapter about itself on every call. */
export interface QueueContext {
  /** The worker id; also the connection's `application_name`. */
  workerId: string;
  /** The run's lease settings. */
  lease: LeaseSettings;
  /**
   * The worker's own wall clock (`Date.now()`, which the clock-skew nemesis may corrupt).
   * A correct adapter never uses it for lease arithmetic; it exists so that a known-bad
   * variant can, and be caught.
   */
  workerNow(): number;
  /**
   * The URL this worker's queue connections use (its own Toxiproxy proxy). leaseproof's worker
   * passes its connection as `db`; an adapter whose queue code opens connections of its own (a
   * worker program in another language, `programQueue`) opens them here, named by `workerId`.
   */
  databaseUrl?: string;
  /**
   * On an `ack` only: the worker had cancelled this claim's handler (its claim was lost, or its
   * shutdown timeout was over) and the handler finished anyway. A correct adapter acks as ever —
   * its fence decides; it exists so that a known-bad variant can treat the case apart.
   */
  handlerCancelled?: boolean;
}

/**
 * What `setup` and `enqueue` are told about the run: the lease in force (after `leaseTerms`), for
 * a library whose lease is a property of its queue or of each job (pg-boss's `expireInSeconds`).
 */
export interface SetupContext {
  /** The run's lease settings, as the adapter's `leaseTerms` settled them. */
  lease: LeaseSettings;
  /**
   * The run database, directly (no proxy), for an adapter whose queue code opens connections of
   * its own; `db` is a connection to it. Such a connection is named `applicationName`.
   */
  databaseUrl?: string;
  /** The `application_name` such a connection must carry (the audit tells writers apart by it). */
  applicationName?: string;
  /** The library's settings as this run uses them (an adapter that declares `settings`). */
  settings?: SettledSettings;
}

/**
 * The lease a run actually uses, when the queue cannot take the scenario's as it is: a library
 * whose lease is whole seconds rounds it up; a library whose lease is a hard-coded constant
 * (graphile-worker's four hours) has that constant rescaled to the scenario's lease. Nothing is
 * silent: every change is a sentence in `notes`, and every rescaled constant is listed.
 */
export interface LeaseTerms {
  /** The settings the run uses: workers, checkers and reports all see these. */
  lease: LeaseSettings;
  /** One sentence per change from the requested settings (empty when none). */
  notes: string[];
  /** Library constants replaced for the run (time compression), each with where it was. */
  rescaled: RescaledConstant[];
  /**
   * Whether this run's lease is extended, when the library's settings decide it (pg-boss 12
   * heartbeats only when `heartbeatSeconds` is set); absent: the adapter's own answer
   * (`native.extendsLease`, or whether it has `extend`).
   */
  extendsLease?: boolean;
  /**
   * The longest the library lets one attempt's handler run before it cuts it, when that is not
   * the lease (River's JobTimeout, against a rescue after RescueStuckJobsAfter): for a queue
   * without lease extension, a job whose work outlasts it can never complete. Absent: the lease.
   */
  attemptLimitMs?: number;
}

/** A library constant that a run replaces by a scaled value (time compression), stated. */
export interface RescaledConstant {
  /** What the constant is, e.g. `lock timeout`. */
  constant: string;
  /** Its value in the library, e.g. `interval '4 hours'`. */
  library: string;
  /** The value the run uses, e.g. `interval '800 milliseconds'`. */
  run: string;
  /** Exactly which statement was rewritten (the library's function and file). */
  statement: string;
}

/**
 * A library's background sweep that the queue depends on: pg-boss re-offers an expired job only
 * when its supervisor's `expire()` runs; graphile-worker frees stale locks in `resetLockedAt`.
 * The harness runs it during the run, every `intervalMs`, on a connection of its own
 * (`application_name` = `leaseproof-maintenance`) that worker faults do not touch: a healthy
 * maintenance node, at the cadence the adapter states.
 */
export interface QueueMaintenance {
  /** One sentence: what it does and which library function it calls. */
  description: string;
  /** How often it runs, for the run's lease. */
  intervalMs(lease: LeaseSettings, settings?: SettledSettings): number;
  /** One pass. A pass that fails (a database restart) is simply followed by the next one. */
  run(db: SqlClient, ctx: SetupContext): Promise<void>;
}

/** A job to enqueue. The payload is opaque to the queue: the handler reads it. */
export interface JobSpec {
  /** Handler plan and anything else the workload wants to carry; stored as JSON. */
  payload: Record<string, unknown>;
  /** Attempts before the job is dead-lettered (queue default when absent). */
  maxAttempts?: number;
}

/** A granted claim on one job. */
export interface Claim {
  /** The job's id, as text. */
  jobId: string;
  /** What identifies this claim among the job's claims (a token); fences stale holders. */
  token: string;
  /** 1 for the first claim of the job, 2 for the next, … */
  attempt: number;
  /** The job's payload. */
  payload: Record<string, unknown>;
  /** The last checkpointed cursor, for jobs done in units that resume after a crash. */
  cursor?: string | null;
}

/** How the lease of one job is visible in the database, for the audit trigger. */
export interface AuditDescription {
  /** The table that holds one row per job with its lease (schema-qualified if need be). */
  table: string;
  /**
   * SQL expressions over that table's row, written with the row as `r` (e.g. `r.id::text`).
   * The trigger evaluates them against the old and the new row of every change.
   */
  expressions: {
    /** The job id as text. */
    jobId: string;
    /** Who holds the lease: the claim token (or the worker id); NULL when nobody does. */
    holder: string;
    /** The lease deadline as timestamptz; NULL when not held. */
    deadline: string;
    /**
     * One of 'pending', 'held', 'completed', 'failed', 'dead'; the last three are terminal
     * ('failed': given up for good by the queue's own rules, 'dead': dead-lettered).
     */
    state: string;
  };
  /** Whether completing a job updates its row (to state 'completed') or deletes it. */
  completion: 'update' | 'delete';
  /**
   * A SQL condition over the row `r` that holds for the run's jobs, when the table also holds the
   * library's own work: procrastinate's documented stalled-job recovery is a periodic task whose
   * jobs (`retry_stalled_jobs`) live in `procrastinate_jobs` beside the scenario's. Rows that do
   * not meet it are neither recorded nor waited for by the drain; what that work does to the
   * run's jobs (its `retry_job` on a stalled one) is recorded on their rows. Absent: every row.
   */
  jobRows?: string;
  /**
   * Where the lease is kept alive, when not in the job's row: procrastinate's workers heartbeat
   * in a row of their own (`procrastinate_workers.last_heartbeat`), and a job's deadline is its
   * worker's heartbeat plus the stalled timeout. A heartbeat then changes no job row, so a second
   * trigger on this table records, for every job the changed row holds, the deadline it moved.
   */
  liveness?: AuditLiveness;
  /**
   * A SQL condition over the old row `o` and the new row `r` of an UPDATE that is the queue's
   * bookkeeping, not a lease write, and is not recorded: procrastinate unregistering a worker
   * clears `worker_id` (a foreign key's ON DELETE SET NULL) on every job that worker ever
   * finished, which would otherwise read as a second acknowledgement of each. Absent: every
   * UPDATE is recorded.
   */
  bookkeeping?: string;
  /**
   * A SQL condition over the old row `o` and the new row `r` of an UPDATE that is the queue
   * library's own background sweep, run inside a worker process (River's job rescuer, on
   * whichever worker leads): recorded with the app `<worker id>:sweep`, so that checkers read it
   * as a sweep — a release judged against the lease's deadline — not as that worker's write on
   * a claim it never held. Absent: every write is its connection's.
   */
  sweep?: string;
}

/** See `AuditDescription.liveness`. */
export interface AuditLiveness {
  /** The table whose rows keep leases alive (schema-qualified if need be). */
  table: string;
  /**
   * A SQL condition over a job row `r` and a liveness row `l`: the held jobs whose lease `l`
   * keeps alive (e.g. `r.worker_id = l.id AND r.status = 'doing'`).
   */
  holds: string;
  /** The deadline, as timestamptz, of the jobs `l` holds, over `l` alone. */
  deadline: string;
}

/**
 * How the worker process runs this queue. Everything but the SQL is the worker's, and two of
 * the built-in known-bad variants differ from the reference only here.
 */
export interface WorkerBehaviour {
  /**
   * `thread`: heartbeats run in a worker_thread with their own connection (correct).
   * `event-loop`: heartbeats are timers on the handler's event loop, so a blocked loop stops
   * them.
   */
  heartbeat: 'thread' | 'event-loop';
  /**
   * `true`: a lost claim aborts the handler at its next cancellation point (correct).
   * `false`: the handler runs on regardless, and acks at the end.
   * `'between-jobs'`: the worker looks at its lost claims only when the handler is done — it then
   * skips the ack — so the handler itself still runs on as a zombie.
   */
  watchdog: boolean | 'between-jobs';
  /**
   * What a graceful stop (SIGTERM) does to the heartbeat of the job the worker finishes.
   * `keeps-heartbeat`: it beats until the job is acked or cancelled (correct). `stops-heartbeat`:
   * the worker stops its heartbeat first, then lets the handler finish, so a handler longer than
   * the lease finishes on an expired claim that another worker has taken (db-scheduler #365).
   */
  shutdown: 'keeps-heartbeat' | 'stops-heartbeat';
}

/** A worker program that runs a queue library's own worker loop (native mode). */
export interface NativeProgram {
  /** The executable and its arguments (no shell: signals must reach the worker itself). */
  command: string[];
  /** Environment added to leaseproof's own. */
  env?: Record<string, string>;
  /** Working directory (default: the current one). */
  cwd?: string;
  /**
   * How the program's wall clock is skewed. `libfaketime` (the default): preloaded, where it is
   * installed. `offset-file`: the program reads its offset itself from the file named by
   * `LEASEPROOF_CLOCK_FILE` (libfaketime's format, seconds: `+1.5000`) — how a Go program built
   * by leaseproof does it, since Go reads the clock without libc.
   */
  clock?: 'libfaketime' | 'offset-file';
}

/**
 * Native mode: the library's **own** worker loop runs — its fetch, heartbeat, completion and
 * rescue — in a program speaking the worker wire format as JSON lines over stdin/stdout
 * (`docs/worker-wire-format.md`), with leaseproof's handler plan as its handler. leaseproof's
 * loop and this adapter's primitives are not used by its workers; the controller still calls
 * `setup`, `enqueue` and `teardown`, and the audit stays the ground truth.
 */
export interface NativeLoop {
  /** One sentence: which library loop runs, and how it is configured for the run. */
  description: string;
  /** Whether the library's loop extends a held lease (heartbeats); false: I9 is n/a and I7 is judged from the deadline. */
  extendsLease: boolean;
  /** The program, resolved once per process (a toolchain may be installed on first need). */
  program(): Promise<NativeProgram>;
  /**
   * The library's own background sweep, when it recovers expired leases that way (River's job
   * rescuer on its leader) rather than at the next fetch: what it does and the longest a lease
   * past its deadline waits for it by design, for I8 as a harness-run sweep's interval is.
   */
  sweep?: {
    description: string;
    intervalMs(lease: LeaseSettings, settings?: SettledSettings): number;
  };
}

/** A queue under test. */
export interface QueueAdapter {
  /** Name in reports (`reference`, `unconditional-ack`, or the user's). */
  readonly name: string;
  /** One sentence on what this queue is, or what is wrong with it. */
  readonly description: string;
  /** Where the lease lives, for the audit trigger. */
  readonly audit: AuditDescription;
  /** How the worker runs it; the reference behaviour when absent. */
  readonly worker?: Partial<WorkerBehaviour>;
  /**
   * The lease the run uses, given the scenario's (see `LeaseTerms`); absent: the scenario's, as
   * it is. Called once per run, before `setup`.
   */
  leaseTerms?(requested: LeaseSettings, settings?: SettledSettings): LeaseTerms;
  /**
   * The library's own settings by its own names, their defaults and the one the scenario's lease
   * stands for (see `library-settings.ts`). The harness settles them once per run — the user's
   * stated values or the defaults, every duration × one time factor — and hands the result to
   * `leaseTerms`, `setup`, the sweep's interval and the worker program; reports list each.
   */
  readonly settings?: LibrarySettingsSpec;
  /** A background sweep the queue depends on, run by the harness during the run. */
  readonly maintenance?: QueueMaintenance;
  /**
   * Whether `fail` offers the job again (until its attempts run out). Absent: `true`. `false`
   * declares a queue without retries — a failed job stays failed, a legitimate design — and a
   * scenario whose handler fails early attempts (`failAttempts`) then needs what the queue
   * lacks: I3 says `n/a` ("needs retries; queue … has none") for the jobs that ended failed,
   * instead of `invalid`. A job lost any other way is still a violation.
   */
  readonly retries?: boolean;
  /** Creates the queue's tables in an empty database. */
  setup(db: SqlClient, ctx?: SetupContext): Promise<void>;
  /** Drops them (the database itself is dropped by the harness anyway). */
  teardown(db: SqlClient): Promise<void>;
  /** Inserts jobs, returns their ids in order. */
  enqueue(db: SqlClient, jobs: JobSpec[], ctx?: SetupContext): Promise<string[]>;
  /** Claims one available job (pending, or held under an expired lease), or none. */
  claim(db: SqlClient, ctx: QueueContext): Promise<Claim | undefined>;
  /**
   * Extends the lease: true when still held, false when the claim was lost. Absent: the queue
   * has no lease extension (pg-boss 10, graphile-worker) — workers send no heartbeat, their
   * watchdog still gives a claim up when its lease runs out on their monotonic clock, and the
   * checkers whose bound is the heartbeat (I7, I9) say `unknown`, with why.
   */
  extend?(db: SqlClient, claim: Claim, ctx: QueueContext): Promise<boolean>;
  /** Acknowledges completion: true when it committed, false when rejected (claim lost). */
  ack(db: SqlClient, claim: Claim, ctx: QueueContext): Promise<boolean>;
  /** Reports failure (retry later or dead-letter): true when it committed. */
  fail(db: SqlClient, claim: Claim, error: string, ctx: QueueContext): Promise<boolean>;
  /** Records progress of a long job: true when it committed (claim still held). */
  checkpoint?(db: SqlClient, claim: Claim, cursor: string, ctx: QueueContext): Promise<boolean>;
  /**
   * The database backend pid of the connection this adapter's last call ran on, for an adapter
   * whose queue code uses connections of its own instead of `db` (`programQueue`). Absent: the
   * worker reports `db`'s. The pid ties a worker's call to the write the audit recorded.
   */
  backendPid?(): number | undefined;
  /**
   * What this queue's code cannot be subjected to. `clockSkew: false`: the clock its code reads
   * cannot be skewed (a worker program without libfaketime), so a run that skews a worker's
   * clock cannot say the queue survived it — its `valid` verdicts read `unknown`, with why.
   */
  readonly limits?: { clockSkew?: false; reason?: string };
  /**
   * What the library asks of its users' handlers, where a scenario can break it. `blockingLoop`:
   * the library's heartbeat runs on the handler's event loop and its documentation rules out
   * blocking that loop (pgqueuer refuses sync entrypoints; procrastinate runs sync tasks in a
   * thread) — in its words, with the link. An expiry that follows a blocked loop (a `stall`
   * fault, a synchronous unit) is then the usage breaking the contract, reported by I9 as a
   * warning naming it, never a violation; I7 still judges what the handler did after.
   *
   * `fencedOnly`: the library promises only that a replaced claim cannot write, not that an
   * expired one cannot — a claim is dead when its detector or maintenance acts, as db-scheduler
   * ("considered a dead execution" once a detector runs) and pg-boss ("failed because of
   * expiration" by maintenance) document; in its words, with the link. I1 then judges it by that
   * promise (fenced) and still states the strict lease contract beside it: writes after the
   * deadline with nobody re-claiming are counted and warned of, never hidden.
   *
   * `leaseTolerance`: how far from statement time + lease a deadline may be within the
   * precision the library promises, and why, in its terms — db-scheduler counts its lease in
   * heartbeats and writes `last_heartbeat` from its JVM's clock read before the statement, so a
   * deadline off by less than one heartbeatInterval is within what it promises. I6 judges grants
   * and extensions by it where it is larger than ε, counts and warns of the deadlines off by more
   * than ε, and names it in its evidence. Only a library adapter declares one: a skewed clock
   * (minutes, hours) stays far outside it.
   */
  readonly contract?: {
    blockingLoop?: string;
    fencedOnly?: string;
    leaseTolerance?: LeaseTolerance;
  };
  /**
   * Called once in each process and thread that will call the primitives (each worker and its
   * heartbeat thread), after loading and before the worker says `ready`: start what the queue's
   * code needs, so that the first claim or heartbeat does not pay for it inside a lease (a
   * Python program that imports its library). Absent: nothing to start.
   */
  open?(): Promise<void>;
  /**
   * Native mode (see `NativeLoop`): workers run the library's own loop, not leaseproof's. An
   * adapter with `native` may leave its primitives refusing with an `AdapterError`.
   */
  readonly native?: NativeLoop;
}

/** See `QueueAdapter.contract.leaseTolerance`. */
export interface LeaseTolerance {
  /** The tolerance in run ms, for the run's library settings (if declared) and lease. */
  ms(settings: SettledSettings | undefined, lease: LeaseSettings): number;
  /** Why a deadline off by that much is within what the library promises, in its terms. */
  why: string;
}

/** A queue with lease extension: the reference queue and its variants are ones. */
export type ExtendingQueueAdapter = QueueAdapter & {
  extend(db: SqlClient, claim: Claim, ctx: QueueContext): Promise<boolean>;
};
