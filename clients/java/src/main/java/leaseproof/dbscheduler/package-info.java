/**
 * db-scheduler's own {@code Scheduler} as a leaseproof native worker: its polling (fetch, then
 * pick by version), its heartbeats, its dead-execution detection and its completion (delete by
 * version), all on the worker's own proxied connection pool, with leaseproof's handler plan as
 * the one task's handler. {@code DbSchedulerNative --print-sql} prints db-scheduler's
 * PostgreSQL table for the controller.
 */
package leaseproof.dbscheduler;
