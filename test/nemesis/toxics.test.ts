import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { createFault } from '../../src/nemesis/create-fault.js';
import type { FaultSpec } from '../../src/nemesis/fault-spec.js';
import { healAll, runTimeline } from '../../src/scenario/execute-run.js';
import { parseScenario } from '../../src/scenario/load-scenario.js';
import { connect } from '../support/pg.js';
import { startQueueRun, units, type QueueRun } from '../support/queue-run.js';
import { extendRoundTrips, median, medianRoundTrip, nemesisContext, roundTrip } from './support.js';

let env: StartedEnvironment;
let run: QueueRun;
// One client through each worker's proxy: what a statement of that worker goes through.
let viaW1: pg.Client;
let viaW2: pg.Client;

const LEASE = { durationMs: 3_000, heartbeatMs: 100, extendByMs: 3_000, pollMs: 50 };

beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
  // Two long jobs: each worker holds one and heartbeats every 100 ms throughout the file.
  run = await startQueueRun(env, {
    queue: 'reference',
    workers: 2,
    lease: LEASE,
    plans: [units(400, 100, { effect: false }), units(400, 100, { effect: false })],
  });
  viaW1 = await connect(run.pool.proxy('w1').urlFor(run.database));
  viaW2 = await connect(run.pool.proxy('w2').urlFor(run.database));
  await Promise.all(
    run.pool.workers.map((w) =>
      w.waitFor((e) => e.kind === 'extend' && e.phase === 'complete', 5_000),
    ),
  );
});
afterAll(async () => {
  await viaW1?.end().catch(() => undefined);
  await viaW2?.end().catch(() => undefined);
  // A short grace: the workers hold jobs far longer than the file runs, and SIGKILL is fine here.
  await run?.pool.stop(500);
  await run?.[Symbol.asyncDispose]();
  await env?.stop();
});

/** Starts the fault a spec describes (one worker: one fault), runs `during`, heals it. */
async function under<T>(spec: FaultSpec, during: () => Promise<T>): Promise<T> {
  const { ctx, records } = nemesisContext(env, run.pool);
  const [timed] = createFault(spec);
  if (timed === undefined) throw new Error('no fault');
  await timed.fault.start(ctx);
  try {
    return await during();
  } finally {
    await timed.fault.heal(ctx);
    expect(records.map((r) => `${r.phase} ${r.fault} ${r.target}`)).toEqual([
      `start ${spec.kind} w1`,
      `end ${spec.kind} w1`,
    ]);
  }
}

const BIG = 'SELECT repeat($$x$$, 100000) AS big';

describe('latency', () => {
  it("slows w1's statements by about the latency (downstream), w2's not at all", async () => {
    const before = await medianRoundTrip(viaW1);
    const windowStart = performance.timeOrigin + performance.now();
    const during = await under(
      {
        kind: 'latency',
        atMs: 0,
        workers: ['w1'],
        latencyMs: 150,
        jitterMs: 0,
        direction: 'downstream',
      },
      async () => {
        const times = { w1: await medianRoundTrip(viaW1), w2: await medianRoundTrip(viaW2) };
        await sleep(600); // heartbeats of both workers under the fault
        return times;
      },
    );
    const windowEnd = performance.timeOrigin + performance.now();
    expect(before).toBeLessThan(50);
    expect(during.w1 - before).toBeGreaterThan(140);
    expect(during.w1 - before).toBeLessThan(250);
    expect(during.w2).toBeLessThan(50);
    // The worker's own queue statements: its heartbeat extensions took the latency too.
    const w1Extends = extendRoundTrips(run.pool.worker('w1'), windowStart + 50, windowEnd - 200);
    const w2Extends = extendRoundTrips(run.pool.worker('w2'), windowStart + 50, windowEnd - 200);
    expect(w1Extends.length).toBeGreaterThanOrEqual(2);
    expect(median(w1Extends)).toBeGreaterThan(140);
    expect(median(w2Extends)).toBeLessThan(50);
    expect(await medianRoundTrip(viaW1)).toBeLessThan(50);
  });

  it('on both streams, adds the latency twice to a round trip', async () => {
    const during = await under(
      { kind: 'latency', atMs: 0, workers: ['w1'], latencyMs: 100, jitterMs: 0, direction: 'both' },
      () => medianRoundTrip(viaW1),
    );
    expect(during).toBeGreaterThan(190);
    expect(during).toBeLessThan(320);
  });

  it('without `for`, stays through the timeline (the drain) and is healed at the run end', async () => {
    const { ctx, records } = nemesisContext(env, run.pool);
    const [spec] = parseScenario(
      [
        'name: standing-latency',
        'lease: { duration: 3s, heartbeat: 100ms }',
        'workers: 2',
        'jobs: { count: 1, handler: { units: 1, unit: { dist: fixed, duration: 10ms } } }',
        'faults:',
        '  - { at: 0ms, latency: { worker: 1, latency: 150ms } }',
        'check: [no-stale-ack]',
      ].join('\n'),
    ).faults;
    if (spec === undefined) throw new Error('no fault');
    const faults = createFault(spec);
    expect(faults.map((f) => f.forMs)).toEqual([undefined]);
    await runTimeline(ctx, faults);
    // The timeline is over (the run is draining): the link is still slow.
    expect(await medianRoundTrip(viaW1)).toBeGreaterThan(140);
    await healAll(ctx, faults);
    expect(await medianRoundTrip(viaW1)).toBeLessThan(50);
    expect(records.map((r) => `${r.phase} ${r.fault} ${r.target}`)).toEqual([
      'start latency w1',
      'end latency w1',
    ]);
  });
});

describe('bandwidth', () => {
  it('makes a 100 KB result take about a second at 100 KB/s, while a small statement stays quick', async () => {
    const before = await roundTrip(viaW1, BIG);
    const during = await under(
      { kind: 'bandwidth', atMs: 0, workers: ['w1'], rateKBps: 100, direction: 'downstream' },
      async () => ({
        big: await roundTrip(viaW1, BIG),
        small: await medianRoundTrip(viaW1),
        other: await roundTrip(viaW2, BIG),
      }),
    );
    expect(before).toBeLessThan(100);
    expect(during.big).toBeGreaterThan(700);
    expect(during.small).toBeLessThan(50);
    expect(during.other).toBeLessThan(100);
  });
});

describe('slicer', () => {
  it('cuts a 100 KB result into 100-byte slices 1 ms apart: it arrives whole, and slowly', async () => {
    const during = await under(
      {
        kind: 'slicer',
        atMs: 0,
        workers: ['w1'],
        averageSize: 100,
        sizeVariation: 20,
        delayMs: 1,
        direction: 'downstream',
      },
      async () => {
        const started = performance.now();
        const result = await viaW1.query<{ big: string }>(BIG);
        return { ms: performance.now() - started, length: result.rows[0]?.big.length };
      },
    );
    expect(during.length).toBe(100_000);
    expect(during.ms).toBeGreaterThan(500);
    expect(await roundTrip(viaW1, BIG)).toBeLessThan(100);
  });
});
