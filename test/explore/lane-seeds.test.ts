import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { laneSeeds } from '../../src/explore/lane-seeds.js';

describe('explore lanes and shards', () => {
  it('one lane, unsharded, searches from the given seed itself (as before --parallel)', () => {
    expect(laneSeeds(120, 50, 1, { index: 1, count: 1 })).toEqual([{ seed: 120, runs: 50 }]);
  });

  it('shares the runs out over shards and lanes, all of them, never a lane without runs', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 500 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 6 }),
        (runs, parallel, count) => {
          const lanes = Array.from({ length: count }, (_, i) =>
            laneSeeds(7, runs, parallel, { index: i + 1, count }),
          ).flat();
          expect(lanes.reduce((sum, l) => sum + l.runs, 0)).toBe(runs);
          expect(lanes.every((l) => l.runs >= 1)).toBe(true);
        },
      ),
    );
  });

  it('gives every lane of every shard its own seed, the same one on every call', () => {
    const all = [1, 2, 3].flatMap((i) => laneSeeds(2026, 90, 4, { index: i, count: 3 }));
    expect(new Set(all.map((l) => l.seed)).size).toBe(all.length);
    expect(laneSeeds(2026, 90, 4, { index: 2, count: 3 })).toEqual(
      laneSeeds(2026, 90, 4, { index: 2, count: 3 }),
    );
    expect(all.every((l) => Number.isInteger(l.seed) && l.seed >= 0 && l.seed <= 0xffffffff)).toBe(
      true,
    );
  });
});
