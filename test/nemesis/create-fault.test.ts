import { describe, expect, it } from 'vitest';
import { EnvironmentError } from '../../src/errors.js';
import { ProxiedEnvironment } from '../../src/env/proxied-environment.js';
import { RunDatabases } from '../../src/env/run-databases.js';
import type { DatabaseProxy, StartedEnvironment, ToxicSpec } from '../../src/env/types.js';
import { BandwidthFault } from '../../src/nemesis/bandwidth-fault.js';
import { ClockFault } from '../../src/nemesis/clock-fault.js';
import { createFault, createFaults } from '../../src/nemesis/create-fault.js';
import { CrashFault } from '../../src/nemesis/crash-fault.js';
import { CrashRestartFault } from '../../src/nemesis/crash-restart-fault.js';
import { StopFault } from '../../src/nemesis/stop-fault.js';
import { DbRestartFault } from '../../src/nemesis/db-restart-fault.js';
import type { FaultSpec } from '../../src/nemesis/fault-spec.js';
import { LatencyFault } from '../../src/nemesis/latency-fault.js';
import { PartitionFault } from '../../src/nemesis/partition-fault.js';
import { PauseFault } from '../../src/nemesis/pause-fault.js';
import { SlicerFault } from '../../src/nemesis/slicer-fault.js';
import { StallFault } from '../../src/nemesis/stall-fault.js';
import type { FaultRecord, NemesisContext } from '../../src/nemesis/types.js';
import type { WorkerPool } from '../../src/pool/worker-pool.js';

/** A context whose proxy and environment only write down what was asked of them. */
function recordingContext(env: Partial<StartedEnvironment> = {}) {
  const calls: string[] = [];
  const toxics: ToxicSpec[] = [];
  const records: FaultRecord[] = [];
  const proxy = {
    addToxic: (toxic: ToxicSpec) => {
      toxics.push(toxic);
      calls.push(`add ${toxic.name}`);
      return Promise.resolve();
    },
    removeToxic: (name: string) => {
      calls.push(`remove ${name}`);
      return Promise.resolve();
    },
  } as unknown as DatabaseProxy;
  const pool = {
    proxy: (id: string) => {
      calls.push(`proxy ${id}`);
      return proxy;
    },
  } as unknown as WorkerPool;
  const ctx: NemesisContext = {
    env: { provider: 'external', ...env } as StartedEnvironment,
    pool,
    record: (r) => records.push(r),
  };
  return { ctx, calls, toxics, records };
}

const describeAll = (spec: FaultSpec) =>
  createFault(spec).map(({ atMs, forMs, fault }) => ({
    atMs,
    forMs,
    type: fault.constructor.name,
    kind: fault.kind,
    target: fault.target,
    detail: fault.detail,
  }));

describe('createFault', () => {
  it('makes one fault per worker for a fault on several workers, with its time and duration', () => {
    expect(
      describeAll({
        kind: 'partition',
        atMs: 100,
        forMs: 1_000,
        workers: ['w1', 'w3'],
        mode: 'reset',
        direction: 'upstream',
      }),
    ).toEqual(
      ['w1', 'w3'].map((target) => ({
        atMs: 100,
        forMs: 1_000,
        type: PartitionFault.name,
        kind: 'partition',
        target,
        detail: { mode: 'reset', direction: 'upstream' },
      })),
    );
  });

  it.each<[FaultSpec, string, Record<string, unknown>, number | undefined]>([
    [
      {
        kind: 'latency',
        atMs: 0,
        forMs: 5,
        workers: ['w1'],
        latencyMs: 100,
        jitterMs: 10,
        direction: 'both',
      },
      LatencyFault.name,
      { latencyMs: 100, jitterMs: 10, direction: 'both' },
      5,
    ],
    [
      {
        kind: 'bandwidth',
        atMs: 0,
        forMs: 5,
        workers: ['w1'],
        rateKBps: 64,
        direction: 'downstream',
      },
      BandwidthFault.name,
      { rateKBps: 64, direction: 'downstream' },
      5,
    ],
    [
      {
        kind: 'slicer',
        atMs: 0,
        forMs: 5,
        workers: ['w1'],
        averageSize: 100,
        sizeVariation: 10,
        delayMs: 0.5,
        direction: 'upstream',
      },
      SlicerFault.name,
      { averageSize: 100, sizeVariation: 10, delayMs: 0.5, direction: 'upstream' },
      5,
    ],
    [{ kind: 'pause', atMs: 0, forMs: 5, worker: 'w1' }, PauseFault.name, {}, 5],
    [{ kind: 'crash', atMs: 0, worker: 'w1' }, CrashFault.name, {}, undefined],
    [
      { kind: 'crash', atMs: 0, worker: 'w1', restartAfterMs: 300 },
      CrashRestartFault.name,
      { restartAfterMs: 300 },
      300,
    ],
    [
      { kind: 'stop', atMs: 0, worker: 'w1', timeoutMs: 50 },
      StopFault.name,
      { timeoutMs: 50 },
      undefined,
    ],
    [
      { kind: 'stop', atMs: 0, worker: 'w1', timeoutMs: 50, restartAfterMs: 300 },
      StopFault.name,
      { timeoutMs: 50, restartAfterMs: 300 },
      300,
    ],
    [{ kind: 'stall', atMs: 0, worker: 'w1', forMs: 5 }, StallFault.name, { ms: 5 }, 5],
    [
      { kind: 'clock', atMs: 0, worker: 'w1', offsetMs: -5 },
      ClockFault.name,
      { offsetMs: -5, driftPpm: 0 },
      undefined,
    ],
    // db-restart ends itself once the database is back: never healed by a timer.
    [
      { kind: 'db-restart', atMs: 0, forMs: 5, mode: 'terminate' },
      DbRestartFault.name,
      { mode: 'terminate', downMs: 5 },
      undefined,
    ],
  ])('%o → %s', (spec, type, detail, forMs) => {
    const [made, ...rest] = describeAll(spec);
    expect(rest).toEqual([]);
    expect(made).toMatchObject({ type, kind: spec.kind, detail });
    expect(made?.forMs).toBe(forMs);
    expect(made?.target).toBe(
      'worker' in spec ? spec.worker : 'workers' in spec ? spec.workers[0] : 'db',
    );
  });

  it('makes a clock with a jump two settings of the skew: the offset, then offset + step (+ drift so far)', () => {
    const faults = createFault({
      kind: 'clock',
      atMs: 100,
      forMs: 3_000,
      worker: 'w2',
      offsetMs: 1_000,
      driftPpm: 1_000,
      jump: { afterMs: 2_000, byMs: -5_000 },
    });
    expect(faults.map((f) => [f.atMs, f.forMs, f.fault.detail])).toEqual([
      [100, 3_000, { offsetMs: 1_000, driftPpm: 1_000 }],
      [2_100, 1_000, { offsetMs: -3_998, driftPpm: 1_000 }],
    ]);
  });

  it('maps a whole timeline in order', () => {
    const faults = createFaults([
      { kind: 'pause', atMs: 0, forMs: 1, worker: 'w1' },
      {
        kind: 'partition',
        atMs: 0,
        forMs: 1,
        workers: ['w1', 'w2'],
        mode: 'down',
        direction: 'both',
      },
    ]);
    expect(faults.map((f) => `${f.fault.kind}@${f.fault.target}`)).toEqual([
      'pause@w1',
      'partition@w1',
      'partition@w2',
    ]);
  });
});

describe('toxic faults', () => {
  it("add Toxiproxy's own attributes on the chosen streams, under names of their own, and remove them on heal", async () => {
    const { ctx, toxics, calls, records } = recordingContext();
    const latency = new LatencyFault('w2', 120.4, 10, 'both');
    const slicer = new SlicerFault(
      'w2',
      { averageSize: 64, sizeVariation: 8, delayMs: 0.5 },
      'downstream',
    );
    const bandwidth = new BandwidthFault('w2', 32, 'upstream');
    for (const fault of [latency, slicer, bandwidth]) await fault.start(ctx);
    expect(toxics.map(({ type, stream, attributes }) => ({ type, stream, attributes }))).toEqual([
      { type: 'latency', stream: 'upstream', attributes: { latency: 120, jitter: 10 } },
      { type: 'latency', stream: 'downstream', attributes: { latency: 120, jitter: 10 } },
      // Toxiproxy's slicer delay is in microseconds.
      {
        type: 'slicer',
        stream: 'downstream',
        attributes: { average_size: 64, size_variation: 8, delay: 500 },
      },
      { type: 'bandwidth', stream: 'upstream', attributes: { rate: 32 } },
    ]);
    expect(new Set(toxics.map((t) => t.name)).size).toBe(4);
    for (const fault of [latency, slicer, bandwidth]) await fault.heal(ctx);
    await latency.heal(ctx); // healing twice is a no-op
    const removed = calls.filter((c) => c.startsWith('remove ')).map((c) => c.slice(7));
    expect(removed.sort()).toEqual(toxics.map((t) => t.name).sort());
    expect(records.map((r) => `${r.phase} ${r.fault}`)).toEqual([
      'start latency',
      'start slicer',
      'start bandwidth',
      'end latency',
      'end slicer',
      'end bandwidth',
    ]);
  });

  it('two overlapping latency faults on one worker do not collide', async () => {
    const { ctx, toxics } = recordingContext();
    await new LatencyFault('w1', 10).start(ctx);
    await new LatencyFault('w1', 20).start(ctx);
    expect(toxics[0]?.name).not.toBe(toxics[1]?.name);
  });
});

describe('db-restart', () => {
  it('asks the environment for the restart, and ends itself once it returns', async () => {
    const asked: unknown[] = [];
    const { ctx, records } = recordingContext({
      restartDatabase: (options) => {
        asked.push(options);
        return Promise.resolve({ mode: options.mode });
      },
    });
    await new DbRestartFault('restart', 250).start(ctx);
    expect(asked).toEqual([{ mode: 'restart', downMs: 250 }]);
    expect(records.map((r) => `${r.phase} ${r.fault} ${r.target}`)).toEqual([
      'start db-restart db',
      'end db-restart db',
    ]);
  });

  it('says which environment can restart the server when this one cannot', async () => {
    const env = new ProxiedEnvironment({
      provider: 'external',
      runId: 'r1',
      adminUrl: 'postgres://u:secret@127.0.0.1:1/postgres',
      toxiproxyUrl: 'http://127.0.0.1:1',
      upstream: '127.0.0.1:1',
      placeProxy: () => ({ listen: '127.0.0.1:0', reach: (a) => a }),
      databases: new RunDatabases({
        adminUrl: 'postgres://u:secret@127.0.0.1:1/postgres',
        runId: 'r1',
      }),
      releasers: [],
    });
    const error = await env.restartDatabase({ mode: 'restart' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EnvironmentError);
    expect((error as Error).message).toMatch(
      /only the embedded environment .* can restart PostgreSQL/,
    );
    expect((error as Error).message).toMatch(/supports mode 'terminate'/);
    // Nothing to terminate yet: no database was handed out.
    await expect(env.restartDatabase({ mode: 'terminate' })).resolves.toEqual({
      mode: 'terminate',
      terminated: 0,
    });
  });
});
