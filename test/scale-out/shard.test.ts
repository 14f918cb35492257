import fc from 'fast-check';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { formatShard, parseShard, shardPositions } from '../../src/scale-out/shard.js';
import {
  MAX_PARALLEL,
  defaultParallelism,
  parseParallel,
  usableCores,
} from '../../src/scale-out/parallelism.js';

describe('--shard i/n', () => {
  it('parses i/n and prints it back', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
    expect(parseShard(' 1 / 1 ')).toEqual({ index: 1, count: 1 });
    expect(formatShard(parseShard('3/5'))).toBe('3/5');
  });

  it.each(['0/2', '3/2', '1/0', '1', '1/2/3', 'a/b', '-1/2', ''])(
    'refuses "%s" with what it expects',
    (text) => {
      expect(() => parseShard(text)).toThrow(ConfigError);
      expect(() => parseShard(text)).toThrow(/--shard takes i\/n with 1 ≤ i ≤ n/);
    },
  );

  it('says shards count from 1 when given 0', () => {
    expect(() => parseShard('0/3')).toThrow(/count from 1/);
  });

  it('splits every plan into shards that cover each position exactly once, evenly', () => {
    fc.assert(
      fc.property(fc.nat(200), fc.integer({ min: 1, max: 12 }), (size, count) => {
        const parts = Array.from({ length: count }, (_, i) =>
          shardPositions(size, { index: i + 1, count }),
        );
        const all = parts.flat().sort((a, b) => a - b);
        expect(all).toEqual(Array.from({ length: size }, (_, p) => p));
        const sizes = parts.map((p) => p.length);
        expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      }),
    );
  });

  it('spreads a scenario run against two queues over two shards', () => {
    // Plan order is scenario-major: [s1×q1, s1×q2, s2×q1, s2×q2].
    expect(shardPositions(4, { index: 1, count: 2 })).toEqual([0, 2]);
    expect(shardPositions(4, { index: 2, count: 2 })).toEqual([1, 3]);
  });
});

describe('--parallel', () => {
  it('defaults to two runs per usable core, at least 1, at most the ceiling', () => {
    expect(defaultParallelism(2)).toBe(4);
    expect(defaultParallelism(1.5)).toBe(3);
    expect(defaultParallelism(0.2)).toBe(1);
    expect(defaultParallelism(500)).toBe(MAX_PARALLEL);
  });

  it('reads a cgroup CPU limit below the machine cores, and ignores "max"', () => {
    expect(usableCores('150000 100000')).toBe(Math.min(availableParallelism(), 1.5));
    expect(usableCores('50000 100000')).toBe(1);
    expect(usableCores('max 100000')).toBeGreaterThanOrEqual(1);
    expect(usableCores('100000000 100000')).toBeLessThanOrEqual(usableCores(undefined));
  });

  it('takes a whole number from 1 to the ceiling, and the default when absent', () => {
    expect(parseParallel('3')).toBe(3);
    expect(parseParallel(undefined)).toBe(defaultParallelism());
    for (const bad of ['0', '1.5', 'x', String(MAX_PARALLEL + 1)]) {
      expect(() => parseParallel(bad)).toThrow(/--parallel takes a whole number/);
    }
  });
});
