/**
 * Times as reports print them. Every time in a history is ms since the epoch on the database
 * clock; people read them best relative to the run's start (`+1234.5ms`), and need the absolute
 * database-clock time to line a report up with the server's own logs.
 */

/** Rounds to µs, which is all a database timestamp has. */
export function roundMs(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/** `t` relative to `start`, e.g. `+1234.5ms`. */
export function relativeTime(t: number, start: number): string {
  const d = roundMs(t - start);
  return `${d < 0 ? '' : '+'}${d}ms`;
}

/**
 * `t` as an ISO timestamp with the database's microseconds, e.g.
 * `2025-12-02T14:01:02.345678Z` (a JavaScript Date keeps only milliseconds).
 */
export function databaseTime(t: number): string {
  if (!Number.isFinite(t)) return String(t);
  const totalMicros = Math.round(t * 1000);
  const whole = Math.floor(totalMicros / 1000);
  const micros = totalMicros - whole * 1000;
  const iso = new Date(whole).toISOString();
  return micros === 0 ? iso : `${iso.slice(0, -1)}${String(micros).padStart(3, '0')}Z`;
}

/** Both: `+1234.5ms (db 2025-12-02T14:01:02.345500Z)`. */
export function bothTimes(t: number, start: number): string {
  return `${relativeTime(t, start)} (db ${databaseTime(t)})`;
}
