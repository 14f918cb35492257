import type { QueueContext } from './types.js';
import type { SqlParams } from './sql-params.js';

/**
 * How a grant or an extension computes the new lease deadline: returns a SQL expression of type
 * timestamptz for "`leaseMs` from now", adding whatever parameters it needs.
 */
export type DeadlineRule = (params: SqlParams, leaseMs: number, ctx: QueueContext) => string;

/**
 * The correct rule: the database evaluates `now() + lease` inside the statement, so the deadline
 * and every later expiry check (`lease_expires_at < now()`) are read off one clock, the server's.
 * The lease travels as a number of milliseconds, never as a timestamp made elsewhere.
 */
export const serverClockDeadline: DeadlineRule = (params, leaseMs) =>
  `now() + ${params.add(leaseMs)}::double precision * interval '1 millisecond'`;

/**
 * The known-bad rule of `worker-clock-lease`: the worker adds the lease to its own `Date` and
 * sends the result. A worker clock that runs ahead grants itself time the server never gave; one
 * that runs behind writes deadlines already in the past, so its claims are up for grabs at once.
 */
export const workerClockDeadline: DeadlineRule = (params, leaseMs, ctx) =>
  `${params.add(new Date(ctx.workerNow() + leaseMs).toISOString())}::timestamptz`;
