/**
 * What a shard knows of the whole plan it is part of, written into its verdict.json so that
 * `leaseproof merge` can tell whether the shards it was given belong together and add up to
 * the whole: the plan's size, a fingerprint of what was planned, and the scenario name at each
 * position (report labels are chosen over the whole plan, so a shard labels a scenario as the
 * unsharded run would).
 */
import { createHash } from 'node:crypto';
import type { Shard } from './shard.js';

/** The whole plan a run was (part of). */
export interface RunPlanInfo {
  /** This run's shard (`1/1` when unsharded). */
  shard: Shard;
  /** Scenario × queue runs in the whole plan. */
  size: number;
  /**
   * sha256 of every planned run (scenario as loaded, queue, seed) and the ε override: shards of
   * one plan share it; shards of different checkouts, queues or seeds do not.
   */
  fingerprint: string;
  /** The scenario's name at each position of the whole plan. */
  names: string[];
}

/** One planned run, as the fingerprint sees it. */
export interface PlannedRun {
  /** The scenario's name. */
  name: string;
  /** The queue it runs against. */
  queue: string;
  /** Its seed (after `--seed`). */
  seed: number;
  /** The scenario as loaded: a change to its faults or workload changes the fingerprint. */
  body: object;
}

/** The plan info of `runs` (the whole plan, in order) for `shard`. */
export function describePlan(
  runs: readonly PlannedRun[],
  shard: Shard,
  epsilonMs: number | undefined,
): RunPlanInfo {
  const hash = createHash('sha256');
  hash.update(JSON.stringify({ epsilonMs: epsilonMs ?? null }));
  for (const run of runs) {
    // Where the file lay differs between machines; what it says does not.
    const { file: _file, ...body } = run.body as { file?: unknown };
    hash.update(JSON.stringify([run.name, run.queue, run.seed, body]));
  }
  return {
    shard,
    size: runs.length,
    fingerprint: hash.digest('hex').slice(0, 16),
    names: runs.map((r) => r.name),
  };
}
