import type { HistoryEvent } from './types.js';

/**
 * Orders a history's events by `t`. The sort is stable, so events with equal `t` keep the order
 * of `sources`, and within a source their own order: pass the sources as job, nemesis, audit,
 * effect, worker — the enqueue before its insert, a fault before what it caused, the database's
 * truth before a worker's report of it — each already in its own order (audit by seq, effects by
 * id, a worker's events as it sent them).
 */
export function orderEvents(sources: readonly (readonly HistoryEvent[])[]): HistoryEvent[] {
  const events = sources.flat();
  return events.sort((a, b) => a.t - b.t);
}
