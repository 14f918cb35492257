import type { Distribution } from './types.js';

/**
 * Nearest-rank p50 / p99 / max of `values` (ms); zeros for an empty list. Sorted as a
 * Float64Array: a numeric sort without a comparator callback per pair.
 */
export function distribution(values: ArrayLike<number>): Distribution {
  const n = values.length;
  if (n === 0) return { count: 0, p50: 0, p99: 0, max: 0 };
  const sorted = Float64Array.from(values).sort();
  const rank = (p: number): number => sorted[Math.max(0, Math.ceil(p * n) - 1)]!;
  return { count: n, p50: round(rank(0.5)), p99: round(rank(0.99)), max: round(sorted[n - 1]!) };
}

/** Rounds a duration to µs, which is all a database timestamp has. */
export function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
