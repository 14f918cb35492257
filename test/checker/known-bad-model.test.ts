import { describe, expect, it } from 'vitest';
import { checkHistory } from '../../src/checker/index.js';
import {
  simulateHistory,
  type ModelVariant,
  type SimulationOptions,
} from '../../src/sim/simulate-history.js';

/**
 * The model playing each built-in known-bad queue, under the faults that expose it: the checker
 * the variant breaks flags it, and the reference under the same faults passes. (The end-to-end
 * tests do the same against real workers and PostgreSQL; this is the fast, exact version.)
 */
const CASES: {
  variant: Exclude<ModelVariant, 'reference'>;
  flaggedBy: string[];
  run: Partial<SimulationOptions>;
}[] = [
  {
    // One unit per job: a worker paused past its lease wakes with nothing left to abort and acks.
    variant: 'unconditional-ack',
    flaggedBy: ['no-stale-ack', 'single-completion'],
    run: {
      units: { min: 1, max: 1 },
      unitMs: { min: 20, max: 40 },
      forceExpiry: true,
      faultKinds: ['pause', 'partition'],
      faults: 4,
    },
  },
  {
    variant: 'no-watchdog',
    flaggedBy: ['bounded-zombie'],
    run: {
      units: { min: 8, max: 10 },
      effectChance: 1,
      forceExpiry: true,
      faultKinds: ['partition'],
      faults: 4,
    },
  },
  {
    variant: 'main-thread-heartbeat',
    flaggedBy: ['explained-expiry'],
    run: { units: { min: 3, max: 6 }, faultKinds: ['stall'], faults: 6 },
  },
  { variant: 'worker-clock-lease', flaggedBy: ['lease-honored'], run: { faults: 0 } },
];

describe('the model of the known-bad queues', () => {
  it.each(CASES)('$variant is flagged by $flaggedBy only', ({ variant, flaggedBy, run }) => {
    for (const seed of [1, 2, 3]) {
      const options = { seed, workers: 3, jobs: 30, ...run };
      const bad = checkHistory(simulateHistory({ ...options, variant }), { strictCauses: true });
      expect(bad.results.filter((r) => r.valid !== 'valid').map((r) => r.checker)).toEqual(
        flaggedBy,
      );
      expect(checkHistory(simulateHistory(options), { strictCauses: true }).valid).toBe('valid');
    }
  });
});
