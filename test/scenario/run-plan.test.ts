import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  loadScenario,
  parseScenario,
  scenarioToRunPlan,
} from '../../src/scenario/load-scenario.js';

const fixture = (name: string): string =>
  fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

describe('scenarioToRunPlan', () => {
  it("maps design.md's example: lease, workers, seed, a workload drawn from the seed, the faults", async () => {
    const scenario = await loadScenario(fixture('design-example.yaml'));
    const plan = scenarioToRunPlan(scenario, { queue: 'reference' });
    expect(plan).toMatchObject({
      scenario: 'pause-past-lease',
      seed: 42,
      queue: 'reference',
      workers: 4,
      lease: { durationMs: 2_000, heartbeatMs: 500, extendByMs: 2_000, pollMs: 100 },
      allowDeadLetter: false,
      drainTimeoutMs: 30_000,
    });
    expect(plan.plans).toHaveLength(200);
    for (const units of plan.plans) {
      expect(units).toHaveLength(4);
      for (const unit of units) {
        expect(unit.ms).toBeGreaterThan(0);
        expect(unit).toMatchObject({ sync: false, effect: true });
      }
    }
    // A log-normal with median 40 ms: about half the units are shorter than that.
    const all = plan.plans.flat().map((u) => u.ms);
    const below = all.filter((ms) => ms < 40).length / all.length;
    expect(below).toBeGreaterThan(0.4);
    expect(below).toBeLessThan(0.6);
    expect(plan.faults).toEqual([
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
    ]);
  });

  it('draws the same workload from the same seed, and another from another seed', async () => {
    const scenario = await loadScenario(fixture('design-example.yaml'));
    const a = scenarioToRunPlan(scenario, { queue: 'reference' });
    const b = scenarioToRunPlan(scenario, { queue: 'unconditional-ack' });
    expect(b.plans).toEqual(a.plans);
    const reseeded = scenarioToRunPlan(scenario, { queue: 'reference', seed: 43 });
    expect(reseeded.seed).toBe(43);
    expect(reseeded.plans).not.toEqual(a.plans);
    // `--seed 42` is the file's own seed: the same workload again.
    expect(scenarioToRunPlan(scenario, { queue: 'reference', seed: 42 }).plans).toEqual(a.plans);
  });

  it('is plain data: it survives JSON, and shares nothing with the scenario', async () => {
    const scenario = await loadScenario(fixture('design-example.yaml'));
    const plan = scenarioToRunPlan(scenario, { queue: 'reference' });
    expect(JSON.parse(JSON.stringify(plan))).toEqual(plan);
    expect(plan.faults).toEqual(scenario.faults);
    expect(plan.faults[0]).not.toBe(scenario.faults[0]);
  });

  it('carries the workload options: effects, sync units, checkpoints, attempts, enqueue rate', () => {
    const scenario = parseScenario(
      [
        'name: options',
        'lease: { duration: 1s, heartbeat: 250ms }',
        'workers: 2',
        'jobs:',
        '  count: 3',
        '  rate: 20',
        '  maxAttempts: 2',
        '  handler: { units: 4, unit: { dist: fixed, duration: 25ms }, effectEvery: 2, sync: true, checkpoint: true }',
        'check: [no-lost-job]',
        'allowDeadLetter: true',
      ].join('\n'),
    );
    const plan = scenarioToRunPlan(scenario, { queue: 'reference' });
    expect(plan.plans).toEqual(
      Array.from({ length: 3 }, () => [
        { ms: 25, sync: true, effect: false },
        { ms: 25, sync: true, effect: true },
        { ms: 25, sync: true, effect: false },
        { ms: 25, sync: true, effect: true },
      ]),
    );
    expect(plan).toMatchObject({
      maxAttempts: 2,
      checkpoint: true,
      enqueueRatePerSecond: 20,
      allowDeadLetter: true,
      faults: [],
    });
  });

  it('draws empirical durations from the samples, and uniform ones within bounds', () => {
    const plan = (unit: string) =>
      scenarioToRunPlan(
        parseScenario(
          [
            'name: dists',
            'lease: { duration: 1s, heartbeat: 250ms }',
            'workers: 1',
            `jobs: { count: 50, handler: { units: 2, unit: ${unit} } }`,
            'check: [no-lost-job]',
          ].join('\n'),
        ),
        { queue: 'reference' },
      )
        .plans.flat()
        .map((u) => u.ms);
    const empirical = plan('{ dist: empirical, samples: [10ms, 20ms, 1s] }');
    expect(new Set(empirical)).toEqual(new Set([10, 20, 1_000]));
    const uniform = plan('{ dist: uniform, min: 10ms, max: 20ms }');
    expect(Math.min(...uniform)).toBeGreaterThanOrEqual(10);
    expect(Math.max(...uniform)).toBeLessThanOrEqual(20);
  });
});
