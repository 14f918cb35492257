import fc from 'fast-check';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  ofLease,
  type DrawnFault,
  type ExploredScenario,
} from '../../src/explore/explored-scenario.js';
import { scenarioArbitrary } from '../../src/explore/scenario-arbitrary.js';
import { inTimeOrder, toScenario } from '../../src/explore/scenario-document.js';
import { queueSlug, writeCounterexample } from '../../src/explore/write-counterexample.js';
import { loadScenario, scenarioToRunPlan } from '../../src/scenario/load-scenario.js';

const META = { name: 'explore', seed: 7, description: 'generated' };

describe('scenarioArbitrary', () => {
  it('draws scenarios that load as scenario files, within the explored ranges', () => {
    fc.assert(
      fc.property(scenarioArbitrary, (drawn) => {
        const scenario = toScenario(drawn, META);
        const { durationMs, heartbeatMs, pollMs } = scenario.lease;
        expect(scenario.workers).toBeGreaterThanOrEqual(2);
        expect(scenario.workers).toBeLessThanOrEqual(4);
        expect(durationMs).toBeGreaterThanOrEqual(600);
        expect(durationMs).toBeLessThanOrEqual(1_200);
        expect(heartbeatMs).toBe(durationMs / 4);
        expect(pollMs).toBeGreaterThanOrEqual(30);
        expect(pollMs).toBeLessThanOrEqual(60);
        expect(scenario.jobs.count).toBeGreaterThanOrEqual(2);
        expect(scenario.jobs.count).toBeLessThanOrEqual(8);
        expect(scenario.checkOptions.strictCauses).toBe(true);
        expect(scenario.faults.length).toBeGreaterThanOrEqual(1);
        expect(scenario.faults.length).toBeLessThanOrEqual(3);
        const starts = scenario.faults.map((f) => f.atMs);
        expect(starts).toEqual([...starts].sort((a, b) => a - b));
        for (const fault of scenario.faults) {
          expect(['pause', 'partition', 'latency', 'stall', 'clock', 'crash']).toContain(
            fault.kind,
          );
          expect(fault.atMs).toBeGreaterThanOrEqual(200);
          expect(fault.atMs).toBeLessThanOrEqual(1_500);
          if (fault.kind !== 'clock' && fault.kind !== 'crash' && fault.kind !== 'stop') {
            expect(fault.forMs).toBeGreaterThanOrEqual(durationMs);
            expect(fault.forMs).toBeLessThanOrEqual(2.5 * durationMs);
          }
        }
        const plan = scenarioToRunPlan(scenario, { queue: 'reference' });
        expect(plan.plans.flat().every((unit) => unit.effect)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('shrinks towards fewer, earlier, one-lease faults', () => {
    // A property that fails whenever there is a fault: the minimal case is one, at its floor.
    const details = fc.check(
      fc.property(scenarioArbitrary, (s) => s.faults.length === 0),
      { seed: 3 },
    );
    const [minimal] = details.counterexample ?? [];
    expect(minimal?.faults).toHaveLength(1);
    expect(minimal?.faults[0]?.atMs).toBe(200);
    expect(minimal?.workers).toBe(2);
    expect(minimal?.jobs).toBe(2);
    const fault = minimal?.faults[0];
    if (fault && 'forPermille' in fault && minimal) {
      expect(ofLease(minimal, fault.forPermille)).toBe(minimal.leaseMs);
    }
  });
});

describe('writeCounterexample', () => {
  it('writes a scenario file that loadScenario reads back, seed and path in its description', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'leaseproof-cx-'));
    const [drawn] = fc.sample(scenarioArbitrary, { seed: 11, numRuns: 1 });
    const origin = {
      queue: 'unconditional-ack',
      seed: 42,
      path: '3:1:0',
      violated: ['no-stale-ack'],
    };
    const first = await writeCounterexample(dir, drawn!, origin);
    const second = await writeCounterexample(dir, drawn!, origin);
    expect(basename(first)).toBe('unconditional-ack-42-1.yaml');
    expect(basename(second)).toBe('unconditional-ack-42-2.yaml');
    const loaded = await loadScenario(first);
    expect(loaded.description).toContain('seed 42');
    expect(loaded.description).toContain('"3:1:0"');
    expect(loaded.faults).toHaveLength(drawn!.faults.length);
  });

  it('lists the faults in the order they start, then by worker', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'leaseproof-cx-'));
    const scenario: ExploredScenario = {
      workers: 2,
      leaseMs: 1_000,
      pollMs: 50,
      jobs: 2,
      handler: { units: 2, unitPermille: 100, sync: false },
      faults: [
        { kind: 'crash', atMs: 900, worker: 1, restartAfterPermille: 500 },
        { kind: 'pause', atMs: 200.4, worker: 2, forPermille: 1_000 },
        { kind: 'stall', atMs: 199.6, worker: 1, forPermille: 1_000 },
        { kind: 'clock', atMs: 400, worker: 2, offsetSeconds: -3 },
        {
          kind: 'partition',
          atMs: 400,
          worker: 1,
          direction: 'both',
          mode: 'reset',
          forPermille: 1_000,
        },
      ],
    };
    const file = await writeCounterexample(dir, scenario, {
      queue: 'reference',
      seed: 1,
      path: '0',
      violated: ['no-stale-ack'],
    });
    const { faults } = parse(await readFile(file, 'utf8')) as {
      faults: ({ at: string } & Record<string, { worker: number }>)[];
    };
    const order = faults.map((f) => {
      const kind = Object.keys(f).find((k) => k !== 'at') ?? '';
      return `${f.at} ${kind} w${f[kind]?.worker}`;
    });
    // 199.6 and 200.4 both show as 200ms, so worker 1 goes first; the drawn list is untouched.
    expect(order).toEqual([
      '200ms stall w1',
      '200ms pause w2',
      '400ms partition w1',
      '400ms clock w2',
      '900ms crash w1',
    ]);
    expect(scenario.faults.map((f) => f.kind)).toEqual([
      'crash',
      'pause',
      'stall',
      'clock',
      'partition',
    ]);
  });

  it('keeps drawn faults that tie on start and worker in their drawn order', () => {
    const tied: DrawnFault[] = [
      { kind: 'pause', atMs: 300, worker: 1, forPermille: 1_000 },
      { kind: 'stall', atMs: 300, worker: 1, forPermille: 1_000 },
    ];
    expect(inTimeOrder(tied).map((f) => f.kind)).toEqual(['pause', 'stall']);
    expect(inTimeOrder([...tied].reverse()).map((f) => f.kind)).toEqual(['stall', 'pause']);
  });

  it('names a queue given by path after its file', () => {
    expect(queueSlug('./adapters/My Queue.ts')).toBe('my-queue');
    expect(queueSlug('reference')).toBe('reference');
  });
});
