/**
 * How much a worker's wall clock is skewed right now, for queue code that reads a clock of its
 * own: a worker program in another language, whose clock `programQueue` moves with libfaketime
 * to match the skew the nemesis gave this worker's `Date`. The worker's `SkewedClock` publishes
 * it under a global symbol (per thread: the heartbeat thread skews its own `Date`), so an
 * adapter module, loaded by path, reads it without importing the worker.
 */
const CLOCK_SKEW_KEY = Symbol.for('leaseproof.clockSkewMs');

type SkewReader = () => number;

/** Publishes this thread's skew reader (the worker's `SkewedClock` does, once installed). */
export function publishClockSkew(read: SkewReader): void {
  (globalThis as Record<symbol, unknown>)[CLOCK_SKEW_KEY] = read;
}

/** This thread's current clock skew in ms (offset plus drift so far); 0 when none was set. */
export function currentClockSkewMs(): number {
  const read = (globalThis as Record<symbol, unknown>)[CLOCK_SKEW_KEY];
  return typeof read === 'function' ? (read as SkewReader)() : 0;
}
