import type pg from 'pg';
import type { StartedEnvironment } from '../../src/env/types.js';
import type { FaultRecord, NemesisContext } from '../../src/nemesis/types.js';
import type { WorkerPool } from '../../src/pool/worker-pool.js';
import type { TimedFault } from '../../src/nemesis/types.js';
import { healAll, runTimeline } from '../../src/scenario/execute-run.js';
import type { StartedWorker } from '../../src/pool/worker-process.js';

/** A nemesis context over a pool, keeping the records the faults write. */
export function nemesisContext(
  env: StartedEnvironment,
  pool: WorkerPool,
): { ctx: NemesisContext; records: FaultRecord[] } {
  const records: FaultRecord[] = [];
  return { ctx: { env, pool, record: (r) => records.push(r) }, records };
}

/** Milliseconds one statement takes on `client`, from send to reply. */
export async function roundTrip(client: pg.Client, sql = 'SELECT 1'): Promise<number> {
  const started = performance.now();
  await client.query(sql);
  return performance.now() - started;
}

/** The median of `n` round trips: one slow scheduling hiccup must not decide a test. */
export async function medianRoundTrip(client: pg.Client, n = 5, sql = 'SELECT 1'): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < n; i += 1) times.push(await roundTrip(client, sql));
  return median(times);
}

/** The median of some numbers (NaN for none). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : (sorted[Math.floor(sorted.length / 2)] ?? Number.NaN);
}

/**
 * How long each of a worker's heartbeat extensions took (invoke to complete, on the worker's
 * monotonic clock), for those invoked in [from, to] (epoch ms): the round trip of a real queue
 * statement through the worker's proxy.
 */
export function extendRoundTrips(worker: StartedWorker, from: number, to: number): number[] {
  const open = new Map<string, number>();
  const times: number[] = [];
  for (const { event } of worker.events) {
    if (event.kind !== 'extend') continue;
    if (event.phase === 'invoke') {
      if (event.at >= from && event.at <= to) open.set(event.token, event.at);
    } else {
      const invokedAt = open.get(event.token);
      open.delete(event.token);
      if (invokedAt !== undefined && event.outcome === 'ok') times.push(event.at - invokedAt);
    }
  }
  return times;
}

/**
 * Runs timed faults as the executor does — each started at its `atMs`, healed after its
 * `forMs` — and heals whatever is left at the end, as the executor does when the run ends.
 */
export async function runFaults(ctx: NemesisContext, faults: TimedFault[]): Promise<void> {
  try {
    await runTimeline(ctx, faults);
  } finally {
    await healAll(ctx, faults);
  }
}
