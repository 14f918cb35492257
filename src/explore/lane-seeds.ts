/**
 * The seeds of a search split into lanes (`--parallel`) and shards (`--shard`). Lane 0 of an
 * unsharded search draws from the given seed itself, so `--parallel 1` searches exactly as
 * before; every other lane draws from a seed derived from (seed, shard, lane), so lanes and
 * shards never repeat each other's draws and the same flags always search the same schedules.
 */
import { createHash } from 'node:crypto';
import type { Shard } from '../scale-out/shard.js';

/** One lane's seed and its share of the runs. */
export interface Lane {
  /** fast-check's seed for this lane. */
  seed: number;
  /** Scenarios this lane tries (`numRuns`). */
  runs: number;
}

/**
 * The lanes of shard `shard` of a search of `runs` scenarios from `seed`, `parallel` at once:
 * the runs are shared out over the shards, then over the lanes (never a lane with nothing to do).
 */
export function laneSeeds(seed: number, runs: number, parallel: number, shard: Shard): Lane[] {
  const shardRuns = share(runs, shard.count, shard.index - 1);
  // A shard of a search smaller than the shard count may have nothing to do.
  const lanes = Math.min(parallel, shardRuns);
  return Array.from({ length: lanes }, (_, lane) => ({
    seed: shard.count === 1 && lane === 0 ? seed : derivedSeed(seed, shard, lane),
    runs: share(shardRuns, lanes, lane),
  }));
}

/** Part `i` of `total` split into `parts` as evenly as whole numbers allow. */
function share(total: number, parts: number, i: number): number {
  return Math.floor(total / parts) + (i < total % parts ? 1 : 0);
}

function derivedSeed(seed: number, shard: Shard, lane: number): number {
  const digest = createHash('sha256')
    .update(`leaseproof-explore:${seed}:${shard.index}/${shard.count}:${lane}`)
    .digest();
  return digest.readUInt32BE(0);
}
