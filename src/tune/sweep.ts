/**
 * The sweep: every grid point of a tune file simulated (`src/sim/`), judged against the
 * budgets, the Pareto frontier of duplicates, stall and heartbeat load, and one recommendation
 * with its reasons.
 */
import { simulatePoint } from '../sim/simulate.js';
import type { SimPoint, SimResult, SimWorkload } from '../sim/sim-types.js';
import type { TuneSpec } from './load-tune.js';

/** One simulated point and how it stands. */
export interface SweptPoint {
  /** lease / handler p99.9. */
  leaseTimesP999: number;
  /** heartbeat / lease (0: no heartbeat). */
  heartbeatFraction: number;
  result: SimResult;
  /** Each budget it breaks, in words (empty: within budget). */
  overBudget: string[];
  /** No other point is at least as good on duplicates, stall and heartbeat load and better on one. */
  pareto: boolean;
}

/** The sweep's outcome. */
export interface SweepOutcome {
  points: SweptPoint[];
  /** Index into `points` of the recommended one, or -1 when no point meets the budgets. */
  recommended: number;
  /** Why that point (or why none). */
  reasons: string[];
  /** Simulated jobs over all points. */
  simulatedJobs: number;
  /** Wall time of the sweep. */
  wallMs: number;
}

/** The simulation workload of a tune file. */
export function workloadOf(spec: TuneSpec): SimWorkload {
  return {
    duration: spec.handler.duration,
    units: spec.handler.units,
    workers: spec.workload.workers,
    jobs: spec.workload.jobs,
    ...(spec.workload.arrivalsPerSecond !== undefined && {
      arrivalsPerSecond: spec.workload.arrivalsPerSecond,
    }),
    maxAttempts: spec.workload.maxAttempts,
    faults: spec.faults,
    rttMs: spec.workload.rttMs,
    seed: spec.seed,
  };
}

/** Every point of the grid, in order: lease, then heartbeat, then extension. */
export function gridPoints(spec: TuneSpec): SimPoint[] {
  const points: SimPoint[] = [];
  for (const leaseMs of spec.grid.leaseMs) {
    for (const fraction of spec.grid.heartbeatFractions) {
      for (const times of spec.grid.extendTimesLease) {
        points.push({
          leaseMs,
          heartbeatMs: fraction === 0 ? null : Math.max(1, Math.round(leaseMs * fraction)),
          extendByMs: Math.round(leaseMs * times),
          pollMs: spec.workload.pollMs,
        });
      }
    }
  }
  return points;
}

/** Simulates the whole grid; `onPoint` hears of each point as it is done. */
export async function sweep(
  spec: TuneSpec,
  onPoint?: (point: SweptPoint, index: number, total: number) => void,
): Promise<SweepOutcome> {
  const started = performance.now();
  const workload = workloadOf(spec);
  const grid = gridPoints(spec);
  const points: SweptPoint[] = [];
  for (const [index, point] of grid.entries()) {
    const result = await simulatePoint(point, workload);
    const swept: SweptPoint = {
      leaseTimesP999: point.leaseMs / spec.handler.p999Ms,
      heartbeatFraction: point.heartbeatMs === null ? 0 : point.heartbeatMs / point.leaseMs,
      result,
      overBudget: overBudget(result, spec.budgets),
      pareto: false,
    };
    points.push(swept);
    onPoint?.(swept, index, grid.length);
  }
  markPareto(points);
  const { recommended, reasons } = recommend(points, spec);
  return {
    points,
    recommended,
    reasons,
    simulatedJobs: points.reduce((n, p) => n + p.result.jobs, 0),
    wallMs: performance.now() - started,
  };
}

/** The budgets a result breaks, in words. */
export function overBudget(result: SimResult, budgets: TuneSpec['budgets']): string[] {
  const over: string[] = [];
  if (result.unfinished > 0) over.push(`${result.unfinished} job(s) never finished`);
  if (
    budgets.duplicatesPer1000 !== undefined &&
    result.duplicatesPer1000 > budgets.duplicatesPer1000
  ) {
    over.push(
      `duplicates ${fmt(result.duplicatesPer1000)}/1000 > ${budgets.duplicatesPer1000}/1000`,
    );
  }
  const measured = !Number.isNaN(result.crashStallMs.p99);
  const stall = measured ? result.crashStallMs.p99 : result.point.leaseMs + result.point.pollMs;
  if (budgets.p99StallMs !== undefined && stall > budgets.p99StallMs) {
    over.push(
      `p99 crash stall ${fmt(stall)}ms${measured ? '' : ' (bound lease + poll)'} > ${budgets.p99StallMs}ms`,
    );
  }
  if (
    budgets.heartbeatWritesPerSecond !== undefined &&
    result.heartbeatWritesPerSecond > budgets.heartbeatWritesPerSecond
  ) {
    over.push(
      `heartbeat writes ${fmt(result.heartbeatWritesPerSecond)}/s > ${budgets.heartbeatWritesPerSecond}/s`,
    );
  }
  return over;
}

/**
 * The p99 crash stall, or — when no crash hit a held job in the simulation — its bound, lease +
 * poll (the deadline must pass, then a worker must poll): an unmeasured stall must not look like
 * no stall, or the longest lease would win every tie.
 */
export const stallOf = (p: SweptPoint): number =>
  Number.isNaN(p.result.crashStallMs.p99)
    ? p.result.point.leaseMs + p.result.point.pollMs
    : p.result.crashStallMs.p99;

function markPareto(points: SweptPoint[]): void {
  const key = (p: SweptPoint): number[] => [
    p.result.duplicatesPer1000,
    stallOf(p),
    p.result.heartbeatWritesPerSecond,
  ];
  for (const p of points) {
    const a = key(p);
    p.pareto = !points.some((q) => {
      if (q === p) return false;
      const b = key(q);
      return b.every((v, i) => v <= a[i]!) && b.some((v, i) => v < a[i]!);
    });
  }
}

/**
 * Among the points within budget (the duplicate budget already caps the duplicates): the
 * shortest crash stall — a lease no longer than it must be — then the fewest duplicates, then
 * the lightest heartbeat. Ranking by duplicates first would chase noise (a few executions in
 * ten thousand) into the longest lease.
 */
function recommend(
  points: SweptPoint[],
  spec: TuneSpec,
): { recommended: number; reasons: string[] } {
  const within = points.map((p, i) => ({ p, i })).filter(({ p }) => p.overBudget.length === 0);
  if (within.length === 0) {
    return {
      recommended: -1,
      reasons: [
        `no point of the grid meets the budgets; the closest breaks: ${
          [...points]
            .sort((a, b) => a.overBudget.length - b.overBudget.length)[0]
            ?.overBudget.join('; ') ?? '—'
        }`,
      ],
    };
  }
  within.sort(
    (x, y) =>
      stallOf(x.p) - stallOf(y.p) ||
      x.p.result.duplicatesPer1000 - y.p.result.duplicatesPer1000 ||
      x.p.result.heartbeatWritesPerSecond - y.p.result.heartbeatWritesPerSecond,
  );
  const best = within[0]!;
  const r = best.p.result;
  const reasons = [
    `lease ${r.point.leaseMs}ms = ${fmt(best.p.leaseTimesP999)} × the handler's p99.9 ` +
      `(${spec.handler.p999Ms}ms), heartbeat ${r.point.heartbeatMs ?? 'none'}` +
      `${r.point.heartbeatMs === null ? '' : 'ms'}, extend by ${r.point.extendByMs}ms`,
    `duplicates ${fmt(r.duplicatesPer1000)}/1000 (${fmt(r.faultDuplicatesPer1000)} after faults, ` +
      `${fmt(r.leaseDuplicatesPer1000)} from handlers outlasting the lease)`,
    `p99 crash stall ${Number.isNaN(r.crashStallMs.p99) ? `not measured (no crash hit a held job); bound lease + poll = ${stallOf(best.p)}ms` : `${fmt(r.crashStallMs.p99)}ms`}`,
    `heartbeat ${fmt(r.heartbeatWritesPerSecond)} writes/s in total`,
    `${within.length} of ${points.length} points meet the budgets; this one has the shortest ` +
      'crash stall, then the fewest duplicates, then the lightest heartbeat',
  ];
  return { recommended: best.i, reasons };
}

/** A figure for people: at most three decimals. */
export function fmt(n: number): string {
  return Number.isNaN(n) ? '—' : String(Math.round(n * 1000) / 1000);
}
