import type { UnitPlan } from '../worker/types.js';
import { Random } from '../random.js';

/** A distribution of unit durations, in milliseconds. */
export type DurationDistribution =
  | { dist: 'fixed'; ms: number }
  | { dist: 'uniform'; minMs: number; maxMs: number }
  /** Log-normal, given its median and its 99.9th percentile (how handler latencies look). */
  | { dist: 'lognormal'; p50Ms: number; p999Ms: number }
  /** Resampled from measured durations (e.g. a production handler's). */
  | { dist: 'empirical'; samplesMs: number[] };

/** The 99.9th percentile of the standard normal distribution (a log-normal's p99.9 fit). */
export const Z_999 = 3.090232306167813;

/** Draws one duration. */
export function drawDuration(distribution: DurationDistribution, random: Random): number {
  switch (distribution.dist) {
    case 'fixed':
      return distribution.ms;
    case 'uniform':
      return distribution.minMs + random.next() * (distribution.maxMs - distribution.minMs);
    case 'lognormal': {
      const mu = Math.log(distribution.p50Ms);
      const sigma = Math.log(distribution.p999Ms / distribution.p50Ms) / Z_999;
      return Math.exp(mu + sigma * random.normal());
    }
    case 'empirical': {
      const sample = distribution.samplesMs[random.int(0, distribution.samplesMs.length - 1)];
      if (sample === undefined) throw new Error('an empirical distribution needs samples');
      return sample;
    }
  }
}

/** How a job's handler is shaped. */
export interface HandlerShape {
  /** Units per job. */
  units: number;
  /** Each unit's duration. */
  unit: DurationDistribution;
  /** Every n-th unit performs an effect (1 = every unit, 0 = none). */
  effectEvery?: number;
  /** Units block the event loop (synchronous work) instead of awaiting. */
  sync?: boolean;
}

/**
 * Draws the unit plans of `count` jobs. Durations are drawn once, at enqueue: a retried job
 * does the same work again, as a real job with the same input would.
 */
export function drawHandlerPlans(shape: HandlerShape, count: number, random: Random): UnitPlan[][] {
  const every = shape.effectEvery ?? 1;
  return Array.from({ length: count }, () =>
    Array.from({ length: shape.units }, (_, i) => ({
      ms: Math.max(0, Math.round(drawDuration(shape.unit, random) * 1000) / 1000),
      sync: shape.sync === true,
      effect: every > 0 && (i + 1) % every === 0,
    })),
  );
}
