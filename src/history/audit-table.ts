/**
 * The audit table: one row per committed INSERT, UPDATE or DELETE of the queue's lease table,
 * written by the trigger inside the transaction that made the change — so a rolled-back change
 * leaves no row, and no network fault between a worker and the server can hide one.
 *
 * Every column that describes *when* and *who* is a default evaluated by the server at the
 * moment of the change; the trigger only supplies what the change was. Nothing here is NOT NULL
 * or CHECKed on values the adapter's expressions produce: a constraint failing inside the trigger
 * would fail the queue's own statement and change the system under test. The reader validates
 * instead.
 */
export const AUDIT_TABLE = 'leaseproof_audit';

// `backend_pid` names the connection that made the change, as `app` names the worker: a worker
// reports the backend pid of the connection each of its calls ran on, so a checker can match a
// call to its writes by identity (a connection is serial) instead of by a time window that the
// worker's clock offset and a loaded machine's scheduling can push a write out of.
//
// `via` is NULL for a change of the row itself, and 'liveness' for the record the liveness
// trigger writes when a heartbeat row moves the deadline of a job it holds
// (`AuditDescription.liveness`): that record is read in the heartbeat's snapshot, which may
// predate a concurrent change of the job, so the history applies it only to a claim it finds
// still held by that holder.

/** Creates the audit table (idempotent). */
export const AUDIT_DDL = `
CREATE TABLE IF NOT EXISTS ${AUDIT_TABLE} (
  seq          bigserial   PRIMARY KEY,
  t            timestamptz NOT NULL DEFAULT clock_timestamp(),
  stmt_t       timestamptz NOT NULL DEFAULT statement_timestamp(),
  txn_t        timestamptz NOT NULL DEFAULT now(),
  xid          text        NOT NULL DEFAULT txid_current()::text,
  app          text        NOT NULL DEFAULT current_setting('application_name'),
  backend_pid  int         DEFAULT pg_backend_pid(),
  op           text        NOT NULL,
  job_id       text,
  old_holder   text,
  old_deadline timestamptz,
  old_state    text,
  new_holder   text,
  new_deadline timestamptz,
  new_state    text,
  via          text
)`;
