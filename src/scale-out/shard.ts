/**
 * `--shard i/n`: one machine's part of a run split across a CI matrix or a Kubernetes Indexed
 * Job. The split is a pure function of the plan — every shard, given the same files, queues and
 * seed, computes the same plan and takes its own part — so no coordinator is needed, and
 * `leaseproof merge` can check that the parts it was given add up to the whole.
 */
import { ConfigError } from '../errors.js';

/** Shard `index` of `count`, 1-based as users write it (`--shard 1/4` … `--shard 4/4`). */
export interface Shard {
  /** 1 … count. */
  index: number;
  /** How many shards the run is split into. */
  count: number;
}

/** The whole run as one shard. */
export const WHOLE: Shard = { index: 1, count: 1 };

/** Parses `i/n` (`1/4`); a clear error for anything else. */
export function parseShard(text: string, flag = '--shard'): Shard {
  const match = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (match === null || !(count >= 1) || !(index >= 1) || index > count) {
    throw new ConfigError(
      `${flag} takes i/n with 1 ≤ i ≤ n, e.g. 1/4 for the first of four shards; got "${text}"` +
        (match !== null && index === 0 ? ' (shards count from 1)' : ''),
    );
  }
  return { index, count };
}

/** `i/n`. */
export function formatShard(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/**
 * The positions (into the whole plan) that belong to `shard`: every n-th, starting at i − 1.
 * Round robin rather than contiguous blocks, so that a plan sorted by scenario spreads each
 * scenario's queues — and the slow scenarios — over the shards.
 */
export function shardPositions(planSize: number, shard: Shard): number[] {
  const positions: number[] = [];
  for (let p = shard.index - 1; p < planSize; p += shard.count) positions.push(p);
  return positions;
}
