/**
 * The search's own clock: milliseconds of wall time from the monotonic clock, which the
 * simulation's fake timers leave alone (they replace `Date`, `performance` and the timers of the
 * whole process while a simulated run is under way, and its budget must not run on them).
 */
export function wallMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}
