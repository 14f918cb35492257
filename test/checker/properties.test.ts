import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALL_CHECKERS, checkHistory, checkerByName } from '../../src/checker/index.js';
import { simulateHistory, type SimulationOptions } from '../../src/sim/simulate-history.js';
import type { FaultKind } from '../../src/history/types.js';
import { ANOMALY_KINDS, injectAnomaly } from './inject-anomaly.js';

const LEASES = [
  { durationMs: 200, heartbeatMs: 50, extendByMs: 200, pollMs: 20 },
  { durationMs: 100, heartbeatMs: 20, extendByMs: 150, pollMs: 5 },
  { durationMs: 300, heartbeatMs: 100, extendByMs: 300, pollMs: 50 },
];

/** Runs of the correct-queue model: a few workers and jobs under random faults. */
function simulations(
  overrides: { minWorkers?: number; forceExpiry?: boolean; faultKinds?: FaultKind[] } = {},
) {
  return fc.record({
    seed: fc.integer({ min: 1, max: 0x7fffffff }),
    workers: fc.integer({ min: overrides.minWorkers ?? 1, max: 5 }),
    jobs: fc.integer({ min: 1, max: 25 }),
    faults: fc.integer({ min: 0, max: 6 }),
    forceExpiry:
      overrides.forceExpiry === undefined ? fc.boolean() : fc.constant(overrides.forceExpiry),
    failChance: fc.constantFrom(0, 0.05, 0.3),
    lease: fc.constantFrom(...LEASES),
    ...(overrides.faultKinds && { faultKinds: fc.constant(overrides.faultKinds) }),
  }) satisfies fc.Arbitrary<SimulationOptions>;
}

describe('checkers over histories of a correct queue (property)', () => {
  it('every checker passes, every expiry explained by its recorded fault', () => {
    fc.assert(
      fc.property(simulations(), (options) => {
        const result = checkHistory(simulateHistory(options), { strictCauses: true });
        const failed = result.results.filter((r) => r.valid !== 'valid');
        expect(failed.map((r) => `${r.checker}: ${r.why ?? r.evidence[0]?.message}`)).toEqual([]);
      }),
      { numRuns: 60 },
    );
  });

  it('one injected anomaly is flagged by its checker, which cites only it', () => {
    // Without database outages: one could explain the expiry the explained-expiry anomaly
    // takes the cause of away.
    const kinds: FaultKind[] = ['pause', 'partition', 'crash', 'stall', 'clock'];
    const cases = fc.record({
      options: simulations({ minWorkers: 2, forceExpiry: true, faultKinds: kinds }),
      kind: fc.constantFrom(...ANOMALY_KINDS),
      pick: fc.nat(),
    });
    fc.assert(
      fc.property(cases, ({ options, kind, pick }) => {
        const injected = injectAnomaly(simulateHistory(options), kind, pick);
        fc.pre(injected !== undefined);
        const checker = checkerByName(kind)!;
        const result = checker.check(injected.history, { strictCauses: true });
        expect(result.valid).toBe('invalid');
        expect(result.evidence.map((e) => e.job)).toEqual(result.evidence.map(() => injected.job));
        if (injected.holder !== undefined) {
          expect(result.evidence[0]?.claims.map((c) => c.holder)).toContain(injected.holder);
        }
      }),
      { numRuns: 90 },
    );
  });

  it('covers every checker with an anomaly kind', () => {
    expect([...ANOMALY_KINDS].sort()).toEqual(ALL_CHECKERS.map((c) => c.name).sort());
  });
});
