import type { SqlClient } from '../queue/types.js';
import { AUDIT_TABLE } from './audit-table.js';
import { AuditDataError } from './history-errors.js';
import type { AuditEvent, LeaseImage, LeaseState } from './types.js';

const LEASE_STATES: ReadonlySet<string> = new Set<LeaseState>([
  'pending',
  'held',
  'completed',
  'failed',
  'dead',
]);

/** Rows read per query: the audit of a long run does not have to fit in one result. */
const PAGE = 10_000;

interface AuditRow extends Record<string, unknown> {
  seq: string;
  t: number;
  stmt_t: number;
  txn_t: number;
  xid: string;
  app: string;
  backend_pid: number | null;
  op: string;
  job_id: string | null;
  old_holder: string | null;
  old_deadline: number | null;
  old_state: string | null;
  new_holder: string | null;
  new_deadline: number | null;
  new_state: string | null;
  via: string | null;
}

// Timestamps as float8 milliseconds, computed by the server from the exact microseconds. The
// order is the table's bigint `seq`, named through its table: a bare `ORDER BY seq` would sort by
// the text alias (1, 10, 100, 2, …), shuffling the rows and making the pages skip some.
const ms = (column: string) => `(extract(epoch FROM ${column}) * 1000)::float8 AS ${column}`;
const SELECT = `SELECT seq::text AS seq, ${ms('t')}, ${ms('stmt_t')}, ${ms('txn_t')}, xid, app, backend_pid, op,
  job_id, old_holder, ${ms('old_deadline')}, old_state, new_holder, ${ms('new_deadline')}, new_state, via
  FROM ${AUDIT_TABLE} a WHERE a.seq > $1::bigint ORDER BY a.seq LIMIT ${PAGE}`;

/**
 * Reads every audit row, in `seq` order, as history events. Throws an `AuditDataError` when there
 * is no audit table (the trigger was never installed: there is no truth to judge by) or when a
 * row's state is not a `LeaseState` (the adapter's state expression is wrong).
 */
export async function readAuditEvents(client: SqlClient): Promise<AuditEvent[]> {
  const { rows: exists } = await client.query<{ ok: boolean }>(
    'SELECT to_regclass($1) IS NOT NULL AS ok',
    [AUDIT_TABLE],
  );
  if (exists[0]?.ok !== true) {
    throw new AuditDataError(
      `there is no ${AUDIT_TABLE} table in this database: install the audit trigger ` +
        '(installAuditTrigger) after the queue is set up and before jobs are enqueued',
    );
  }
  const events: AuditEvent[] = [];
  for (let after = '0'; ;) {
    const { rows } = await client.query<AuditRow>(SELECT, [after]);
    for (const row of rows) events.push(auditEvent(row));
    if (rows.length < PAGE) return mergeMoves(events);
    after = rows[rows.length - 1]!.seq;
  }
}

/**
 * Reads a row that one transaction deleted and inserted again under the same job id as one
 * update: pg-boss fails and expires a job by `DELETE … RETURNING` and a re-`INSERT` of the same id
 * (into the retry state, or the failed one), in one statement of data-modifying CTEs — whose
 * parts run in no promised order, so the insert's trigger row may come first. The lease moved;
 * the job did not end and begin again. The k-th delete of a job in a transaction pairs with its
 * k-th insert there; the update takes the place and time of the earlier of the two, the old image
 * of the delete and the new image of the insert. A delete with no insert of its id in its
 * transaction stays a delete (a queue that completes by deleting, like graphile-worker).
 */
export function mergeMoves(events: AuditEvent[]): AuditEvent[] {
  const deletes = new Map<string, number[]>();
  const inserts = new Map<string, number[]>();
  events.forEach((event, i) => {
    const by = event.op === 'delete' ? deletes : event.op === 'insert' ? inserts : undefined;
    if (by === undefined) return;
    const key = `${event.xid}\u0000${event.job}`;
    const list = by.get(key);
    if (list === undefined) by.set(key, [i]);
    else list.push(i);
  });
  const replaced = new Map<number, AuditEvent>();
  const dropped = new Set<number>();
  for (const [key, dels] of deletes) {
    const ins = inserts.get(key) ?? [];
    for (let k = 0; k < Math.min(dels.length, ins.length); k += 1) {
      const del = events[dels[k]!]!;
      const insert = events[ins[k]!]!;
      const first = Math.min(dels[k]!, ins[k]!);
      replaced.set(first, { ...events[first]!, op: 'update', old: del.old, new: insert.new });
      dropped.add(Math.max(dels[k]!, ins[k]!));
    }
  }
  if (replaced.size === 0) return events;
  return events.flatMap((event, i) => (dropped.has(i) ? [] : [replaced.get(i) ?? event]));
}

function auditEvent(row: AuditRow): AuditEvent {
  if (row.op !== 'insert' && row.op !== 'update' && row.op !== 'delete') {
    throw bad(row, `op "${row.op}" is not insert, update or delete`);
  }
  if (row.job_id === null) throw bad(row, 'the jobId expression gave NULL');
  return {
    type: 'audit',
    t: row.t,
    stmtT: row.stmt_t,
    txnT: row.txn_t,
    xid: row.xid,
    app: row.app,
    ...(row.backend_pid !== null && { pid: row.backend_pid }),
    op: row.op,
    job: row.job_id,
    old: row.op === 'insert' ? null : image(row, row.old_holder, row.old_deadline, row.old_state),
    new: row.op === 'delete' ? null : image(row, row.new_holder, row.new_deadline, row.new_state),
    ...(row.via === 'liveness' && { liveness: true as const }),
  };
}

function image(
  row: AuditRow,
  holder: string | null,
  deadline: number | null,
  state: string | null,
): LeaseImage {
  if (state === null || !LEASE_STATES.has(state)) {
    throw bad(
      row,
      `state ${state === null ? 'NULL' : `"${state}"`} is not one of ` +
        `${[...LEASE_STATES].join(', ')}: the adapter's audit state expression must map every row to one`,
    );
  }
  return { holder, deadline, state: state as LeaseState };
}

function bad(row: AuditRow, problem: string): AuditDataError {
  return new AuditDataError(
    `${AUDIT_TABLE} row ${row.seq} (job ${row.job_id ?? 'NULL'}): ${problem}`,
  );
}
