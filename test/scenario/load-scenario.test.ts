import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadScenario, parseScenario } from '../../src/scenario/load-scenario.js';

const fixture = (name: string): string =>
  fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

describe('loadScenario on valid files', () => {
  it("loads design.md's example verbatim, durations in ms and workers by id", async () => {
    const scenario = await loadScenario(fixture('design-example.yaml'));
    expect(scenario).toEqual({
      file: fixture('design-example.yaml'),
      name: 'pause-past-lease',
      description:
        'A worker is stopped mid-handler for longer than its lease; its late ack must be rejected.',
      seed: 42,
      lease: { durationMs: 2_000, heartbeatMs: 500, extendByMs: 2_000, pollMs: 100 },
      workers: 4,
      jobs: {
        count: 200,
        handler: {
          units: 4,
          unit: { dist: 'lognormal', p50Ms: 40, p999Ms: 400 },
          effectEvery: 1,
          sync: false,
          checkpoint: false,
          failAttempts: 0,
          ignoresAbort: false,
        },
      },
      faults: [
        { kind: 'pause', atMs: 1_000, forMs: 5_000, worker: 'w2' },
        {
          kind: 'partition',
          atMs: 3_000,
          forMs: 4_000,
          workers: ['w1'],
          mode: 'blackhole',
          direction: 'both',
        },
        { kind: 'clock', atMs: 0, worker: 'w3', offsetMs: 90_000 },
      ],
      check: [
        'no-stale-ack',
        'single-completion',
        'no-lost-job',
        'exclusive-claim',
        'at-least-once-bound',
        'lease-honored',
        'bounded-zombie',
        'timely-recovery',
        'explained-expiry',
      ],
      checkOptions: {},
      drainTimeoutMs: 30_000,
      allowDeadLetter: false,
      settings: {},
    });
  });

  it('loads every fault kind with every optional setting', async () => {
    const scenario = await loadScenario(fixture('every-fault.yaml'));
    expect(scenario.lease).toEqual({
      durationMs: 1_000,
      heartbeatMs: 200,
      extendByMs: 1_500,
      pollMs: 50,
    });
    expect(scenario.jobs).toEqual({
      count: 20,
      ratePerSecond: 50,
      maxAttempts: 4,
      handler: {
        units: 3,
        unit: { dist: 'uniform', minMs: 10, maxMs: 30 },
        effectEvery: 2,
        sync: true,
        checkpoint: false,
        failAttempts: 0,
        ignoresAbort: false,
      },
    });
    expect(scenario.faults).toEqual([
      {
        kind: 'partition',
        atMs: 100,
        forMs: 1_000,
        workers: ['w1', 'w2'],
        mode: 'reset',
        direction: 'downstream',
      },
      {
        kind: 'latency',
        atMs: 200,
        forMs: 2_000,
        workers: ['w3'],
        latencyMs: 150,
        jitterMs: 20,
        direction: 'both',
      },
      {
        kind: 'bandwidth',
        atMs: 300,
        forMs: 1_000,
        workers: ['w1'],
        rateKBps: 64,
        direction: 'downstream',
      },
      {
        kind: 'slicer',
        atMs: 400,
        forMs: 1_000,
        workers: ['w2'],
        averageSize: 100,
        sizeVariation: 10,
        delayMs: 0.5,
        direction: 'downstream',
      },
      { kind: 'pause', atMs: 500, forMs: 2_000, worker: 'w1' },
      { kind: 'crash', atMs: 600, worker: 'w2', restartAfterMs: 1_000 },
      { kind: 'crash', atMs: 700, worker: 'w3' },
      { kind: 'stop', atMs: 750, worker: 'w1', timeoutMs: 2_000, restartAfterMs: 300 },
      { kind: 'stop', atMs: 760, worker: 'w2', timeoutMs: 500 },
      {
        kind: 'clock',
        atMs: 0,
        forMs: 3_000,
        worker: 'w1',
        offsetMs: -3_600_000,
        driftPpm: 500,
        jump: { afterMs: 1_000, byMs: 1_800_000 },
      },
      { kind: 'stall', atMs: 800, worker: 'w1', forMs: 300 },
      { kind: 'db-restart', atMs: 900, forMs: 250, mode: 'terminate' },
      { kind: 'db-restart', atMs: 60_000, mode: 'restart' },
    ]);
    expect(scenario.checkOptions).toEqual({
      epsilonMs: 10,
      staleAck: 'fenced',
      strictCauses: true,
    });
    expect(scenario.drainTimeoutMs).toBe(90_000);
    expect(scenario.allowDeadLetter).toBe(true);
  });

  it('fills in the defaults: seed 1, extendBy = duration, poll 100ms, no faults, drain 30s', () => {
    const scenario = parseScenario(
      [
        'name: minimal',
        'lease: { duration: 3s, heartbeat: 1s }',
        'workers: 1',
        'jobs: { count: 1, handler: { units: 1, unit: { dist: fixed, duration: 10ms } } }',
        'check: [no-lost-job]',
      ].join('\n'),
    );
    expect(scenario.seed).toBe(1);
    expect(scenario.lease).toEqual({
      durationMs: 3_000,
      heartbeatMs: 1_000,
      extendByMs: 3_000,
      pollMs: 100,
    });
    expect(scenario.faults).toEqual([]);
    expect(scenario.description).toBe('');
    expect(scenario.drainTimeoutMs).toBe(30_000);
    expect(scenario.jobs.handler).toEqual({
      units: 1,
      unit: { dist: 'fixed', ms: 10 },
      effectEvery: 1,
      sync: false,
      checkpoint: false,
      failAttempts: 0,
      ignoresAbort: false,
    });
  });

  it("takes a library's own settings by library and name, in the library's units", () => {
    const text = (settings: string) =>
      [
        'name: with-settings',
        'lease: { duration: 1s, heartbeat: 250ms }',
        settings,
        'workers: 1',
        'jobs: { count: 1, handler: { units: 1, unit: { dist: fixed, duration: 10ms } } }',
        'check: [no-lost-job]',
      ].join('\n');
    const scenario = parseScenario(
      text('settings: { river: { JobTimeout: 10m, MaxWorkers: 2 }, db-scheduler: { threads: 4 } }'),
    );
    expect(scenario.settings).toEqual({
      river: { JobTimeout: '10m', MaxWorkers: 2 },
      'db-scheduler': { threads: 4 },
    });
    expect(() => parseScenario(text('settings: { river: { JobTimeout: soon } }'))).toThrow(
      /settings\.river\.JobTimeout/,
    );
  });
});
