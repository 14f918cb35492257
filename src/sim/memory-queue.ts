/**
 * The reference queue (`src/queue/reference-queue.ts`) in memory: the one queue model both
 * simulations run against — the history generator of the checker tests (`simulate-history.ts`)
 * and the tuning simulation (`simulate.ts`). One row per job with its lease; the claim predicate
 * of the seed text (pending and due, or held under a passed deadline, lowest id first); a fresh
 * token per claim; extend, ack and fail behind the strict fence (this token, still held, deadline
 * not past at the statement's time). Times are on whatever clock the caller runs, standing for
 * the database's `now()`.
 *
 * Where the two simulations differ it takes options: the retry backoff, the flaw of
 * `unconditional-ack`, and a hook told of every committed change (the history generator's audit
 * trigger; the tuning simulation keeps its own ledger of claims instead).
 */
import type { AuditEvent, LeaseImage, LeaseState } from '../history/types.js';
import type { UnitPlan } from '../worker/types.js';

/** A job's row, plus its handler plan. */
export interface QueueRow {
  /** `1`, `2`, … in insertion order. */
  readonly id: string;
  readonly units: UnitPlan[];
  state: LeaseState;
  /** The current claim's token; null when nobody holds the job. */
  holder: string | null;
  /** The lease's deadline; null when nobody holds the job. */
  deadline: number | null;
  availableAt: number;
  /** Claims so far, expired ones included (as the reference counts them). */
  attempts: number;
}

/** One committed change of a row, as an audit trigger sees it. */
export interface RowChange {
  stmtT: number;
  /** The `application_name` of the connection that made it. */
  app: string;
  op: AuditEvent['op'];
  /** The row, already changed. */
  row: QueueRow;
  /** The row's lease before the change; null for an insert. */
  old: LeaseImage | null;
}

/** How a simulation's queue behaves where the two simulations differ. */
export interface MemoryQueueOptions {
  /** Claims before a failing job is dead-lettered. */
  maxAttempts: number;
  /** The wait before the next attempt of a job that failed after `attempts` claims. */
  backoffMs: (attempts: number) => number;
  /** Ack by job id alone, fence or no fence (the flaw of `unconditional-ack`). */
  unfencedAck?: boolean;
  /** Told of every committed change, in commit order. */
  onChange?: (change: RowChange) => void;
}

/** The `application_name` that inserts jobs: the harness. */
const HARNESS_APP = 'leaseproof';

/** The queue's rows and its statements. */
export class MemoryQueue {
  readonly rows: QueueRow[] = [];
  /**
   * Jobs claimed at least once and not finished, in id order (a `Set` keeps insertion order and
   * ids are claimed in order): the only rows below the frontier a claim can find.
   */
  private readonly open = new Set<QueueRow>();
  /** The lowest job never claimed. */
  private frontier = 0;
  private tokens = 0;
  private done = 0;

  constructor(private readonly options: MemoryQueueOptions) {}

  /** Jobs completed or dead. */
  get finished(): number {
    return this.done;
  }

  /** Whether every job inserted so far is completed or dead. */
  get drained(): boolean {
    return this.done === this.rows.length;
  }

  /** The row of a job id, if there is one. */
  row(id: string): QueueRow | undefined {
    return this.rows[Number(id) - 1];
  }

  /** Inserts a job, available at once. */
  enqueue(t: number, units: UnitPlan[]): QueueRow {
    const row: QueueRow = {
      id: String(this.rows.length + 1),
      units,
      state: 'pending',
      holder: null,
      deadline: null,
      availableAt: t,
      attempts: 0,
    };
    this.rows.push(row);
    this.changed(t, HARNESS_APP, 'insert', row, null);
    return row;
  }

  /** The claim statement at `stmtT`: the lowest claimable job gets a fresh token and `deadline`. */
  claim(app: string, stmtT: number, deadline: number): QueueRow | undefined {
    const row = this.claimable(stmtT);
    if (row === undefined) return undefined;
    const old = leaseImage(row);
    row.attempts += 1;
    row.state = 'held';
    row.holder = `c${(this.tokens += 1)}`;
    row.deadline = deadline;
    this.changed(stmtT, app, 'update', row, old);
    return row;
  }

  /** The extension: moves the deadline of a claim still held; true when it did. */
  extend(app: string, row: QueueRow, token: string, stmtT: number, deadline: number): boolean {
    if (!holds(row, token, stmtT)) return false;
    const old = leaseImage(row);
    row.deadline = deadline;
    this.changed(stmtT, app, 'update', row, old);
    return true;
  }

  /**
   * The ack (to completed) or the fail (to pending after the backoff, or dead once out of
   * attempts), behind the fence unless `unfencedAck`; true when the row changed.
   */
  finish(app: string, row: QueueRow, token: string, stmtT: number, kind: 'ack' | 'fail'): boolean {
    const unfenced = kind === 'ack' && this.options.unfencedAck === true;
    if (!unfenced && !holds(row, token, stmtT)) return false;
    const old = leaseImage(row);
    row.holder = null;
    row.deadline = null;
    if (kind === 'ack') row.state = 'completed';
    else if (row.attempts >= this.options.maxAttempts) row.state = 'dead';
    else {
      row.state = 'pending';
      row.availableAt = stmtT + this.options.backoffMs(row.attempts);
    }
    this.changed(stmtT, app, 'update', row, old);
    // An unfenced ack can finish a job twice: it is counted once.
    if (row.state !== 'pending' && this.open.delete(row)) this.done += 1;
    return true;
  }

  private claimable(stmtT: number): QueueRow | undefined {
    for (const row of this.open) {
      if (row.state === 'pending' ? row.availableAt <= stmtT : row.deadline! < stmtT) return row;
    }
    const row = this.rows[this.frontier];
    if (row === undefined) return undefined;
    this.frontier += 1;
    this.open.add(row);
    return row;
  }

  private changed(
    stmtT: number,
    app: string,
    op: AuditEvent['op'],
    row: QueueRow,
    old: LeaseImage | null,
  ): void {
    this.options.onChange?.({ stmtT, app, op, row, old });
  }
}

/** A row's lease as the audit trigger records it. */
export function leaseImage(row: QueueRow): LeaseImage {
  return { holder: row.holder, deadline: row.deadline, state: row.state };
}

/** The strict fence: this token, still held, lease not past at the statement's time. */
function holds(row: QueueRow, token: string, stmtT: number): boolean {
  return row.holder === token && row.state === 'held' && row.deadline! >= stmtT;
}
