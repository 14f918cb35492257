import type { SqlClient } from '../queue/types.js';

/** The controller's clock relative to the database's. */
export interface ClockOffset {
  /** Controller `Date.now()` minus database `clock_timestamp()`, in ms. */
  offsetMs: number;
  /**
   * Half the round trip of the sample the offset came from (plus the tiny error of reading the
   * controller's clock below a millisecond): the offset is ± this.
   */
  uncertaintyMs: number;
}

/**
 * Measures the controller-to-database clock offset by the midpoint method: the database read its
 * clock somewhere between sending the query and receiving the answer, so the offset is taken at
 * the midpoint and is uncertain by half the round trip. The sample with the smallest round trip
 * is kept (queueing and scheduling only ever add delay). The first query also pays for parsing
 * and planning, which is one more reason to take several. On a loaded machine even the best of
 * seven round trips was 190 ms (an offset uncertain by 95 ms, more than the gap between two of
 * a worker's calls), so it goes on sampling — up to `maxSamples` — until one comes back within
 * `targetMs` of certainty: a quick round trip is a matter of luck with the scheduler.
 */
export async function measureClockOffset(
  client: SqlClient,
  samples = 7,
  maxSamples = 60,
  targetMs = 1,
): Promise<ClockOffset> {
  const clock = wallClock();
  const now = clock.now;
  let best: ClockOffset | undefined;
  for (let i = 0; i < Math.max(samples, maxSamples); i += 1) {
    if (i >= samples && best !== undefined && best.uncertaintyMs <= targetMs) break;
    const sent = now();
    const { rows } = await client.query<{ t: number }>(
      'SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS t',
    );
    const received = now();
    const databaseT = Number(rows[0]?.t);
    const sample = {
      offsetMs: (sent + received) / 2 - databaseT,
      uncertaintyMs: (received - sent) / 2 + clock.errorMs / 2,
    };
    if (best === undefined || sample.uncertaintyMs < best.uncertaintyMs) best = sample;
  }
  if (best === undefined || !Number.isFinite(best.offsetMs)) {
    throw new RangeError('measureClockOffset needs at least one sample');
  }
  return best;
}

/**
 * `Date.now()` with sub-millisecond resolution: `Date.now()` ticks in whole milliseconds, which
 * is coarser than a local round trip. Anchored at the instant `Date.now()` ticks over, then
 * carried forward by the monotonic clock — over the few milliseconds of a measurement the two
 * cannot drift apart. The tick is known to have happened between two monotonic readings; a
 * preemption between them would widen that window, so a tick is only taken when the window is
 * narrow (a few tries at most), and the window is reported as the anchor's error.
 */
function wallClock(): { now: () => number; errorMs: number } {
  let best = { anchor: 0, errorMs: Infinity };
  for (let tries = 0; tries < 5 && best.errorMs > 0.02; tries += 1) {
    // The tick happened after the previous read of Date.now() began and before this one ended.
    let previousStart = performance.now();
    let previous = Date.now();
    for (;;) {
      const start = performance.now();
      const tick = Date.now();
      const end = performance.now();
      if (tick !== previous) {
        const window = end - previousStart;
        if (window < best.errorMs)
          best = { anchor: tick - (previousStart + end) / 2, errorMs: window };
        break;
      }
      previous = tick;
      previousStart = start;
    }
  }
  const { anchor, errorMs } = best;
  return { now: () => anchor + performance.now(), errorMs };
}
