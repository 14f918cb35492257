/**
 * When a write was judged: the database time a queue's fences compared with a deadline. Part of
 * the history's public vocabulary — the derivation and the checkers both judge writes at it.
 */
import type { AuditEvent } from './types.js';

/**
 * How far a statement's transaction start (`txnT`, `now()`) may precede its statement time
 * (`stmtT`) and still be the time its fence judged. Over the extended protocol — every
 * parameterised query of node-postgres — an autocommit statement's transaction starts at Parse
 * and its statement at Bind; on a loaded server the two were seen 3.9 ms apart, and a reference
 * extension whose `now()` was before the deadline had a `stmtT` 0.13 ms after it.
 */
export const STATEMENT_START_SLACK_MS = 5;

/**
 * The database time a write is judged at: the time its queue's own fences and claim predicate
 * compared the deadline with — `now()`, the transaction's start, when that is within
 * `STATEMENT_START_SLACK_MS` of the statement's — else the statement's time less that slack, so
 * a fence evaluated early in a long transaction still counts as late. `clock_timestamp()` (the
 * audit's `t`) is later still.
 */
export function fenceT(e: AuditEvent): number {
  return Math.max(e.txnT, e.stmtT - STATEMENT_START_SLACK_MS);
}
