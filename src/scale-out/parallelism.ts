/**
 * The default of `--parallel`: two runs per usable core, as a ceiling. A run spends most of its
 * wall time waiting — for leases to expire, for faults to heal, for the drain — so more runs than
 * cores fit on a quiet machine (the README's figures). On a busy one they do not: every run
 * beside others is admitted only while the runs under way are not starved (machine-room.ts), so
 * on a runner shared with other jobs the lanes thin out instead of costing verdicts.
 */
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { ConfigError } from '../errors.js';
import { ROOM_STARVED_MS, ROOM_WINDOW_MS } from './machine-room.js';

/** Runs side by side per core by default. */
export const RUNS_PER_CORE = 2;

/** The most runs side by side `--parallel` takes, and the default's ceiling. */
export const MAX_PARALLEL = 64;

/** The default number of runs side by side on this machine. */
export function defaultParallelism(cores = usableCores()): number {
  return Math.min(MAX_PARALLEL, Math.max(1, Math.floor(cores * RUNS_PER_CORE)));
}

/**
 * The cores this process may use: the machine's, or fewer where a cgroup (a Kubernetes CPU
 * limit, `docker run --cpus`) says so — Node 20's `availableParallelism` counts the node's
 * cores, and a pod limited to 2 of 64 would otherwise start 128 runs.
 */
export function usableCores(cpuMax = readCpuMax()): number {
  const cores = availableParallelism();
  const match = /^(\d+)\s+(\d+)/.exec(cpuMax ?? '');
  if (match === null) return cores;
  const limit = Number(match[1]) / Number(match[2]);
  return limit > 0 ? Math.min(cores, Math.max(1, limit)) : cores;
}

function readCpuMax(): string | undefined {
  try {
    // cgroup v2: "<quota> <period>", or "max <period>" when unlimited.
    return readFileSync('/sys/fs/cgroup/cpu.max', 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * The sentence the first progress line gives about parallelism: how many at most, why that
 * many, and what else decides.
 */
export function describeParallelism(lanes: number, given: boolean, cores = usableCores()): string {
  const why = given
    ? 'as asked'
    : `the default: ${RUNS_PER_CORE} per usable core, ${Math.round(cores * 100) / 100} here`;
  if (lanes === 1) return `one run at a time (${why})`;
  return (
    `up to ${lanes} runs side by side (${why}); one starts beside others once the previous ` +
    `one's workers are ready, and only while none of their workers has been kept from a CPU ` +
    `for ${ROOM_STARVED_MS} ms in the last ${ROOM_WINDOW_MS / 1000} s, so a busy machine runs fewer at once`
  );
}

/** `--parallel N` as given (a whole number ≥ 1), or the default when absent. */
export function parseParallel(text: string | undefined): number {
  if (text === undefined) return defaultParallelism();
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > MAX_PARALLEL) {
    throw new ConfigError(
      `--parallel takes a whole number from 1 to ${MAX_PARALLEL}; got "${text}"`,
    );
  }
  return n;
}
