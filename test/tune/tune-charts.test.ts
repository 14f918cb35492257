// The tune page's charts as options: log axes where the sweep spans orders of magnitude, a
// line for every budget the document holds and for the handler's p99.9, the recommended point
// drawn apart, and legends clear of the axis names. Built on a hand-made sweep of the shape
// examples/tune.yaml gives (p99.9 2 s, leases 0.5–15 × it), so no simulation runs.
import { describe, expect, it } from 'vitest';
import type { SimResult } from '../../src/sim/sim-types.js';
import type { SweptPoint } from '../../src/tune/sweep.js';
import { tuneCharts } from '../../src/tune/tune-charts.js';
import { renderTuneHtml, type TuneDocument } from '../../src/tune/tune-report.js';
import { runPageScripts } from '../support/page-script.js';

const P999 = 2_000;
const TIMES = [0.5, 1, 2, 3, 5, 10, 15];
const FRACTIONS = [0, 0.1, 0.25, 0.5];

function point(times: number, fraction: number): SweptPoint {
  const leaseMs = times * P999;
  const heartbeatMs = fraction === 0 ? null : leaseMs * fraction;
  const result: SimResult = {
    point: { leaseMs, heartbeatMs, extendByMs: leaseMs, pollMs: 200 },
    jobs: 500,
    completed: 500,
    dead: 0,
    unfinished: 0,
    // Many duplicates below the p99.9 without a heartbeat, none above it.
    duplicatesPer1000: times < 1 && fraction === 0 ? 120 : times < 2 ? 3 : 0,
    duplicatedJobsPer1000: 0,
    faultDuplicatesPer1000: 0,
    leaseDuplicatesPer1000: 0,
    unexplainedExpiriesPer1000: 0,
    // The stall grows with the lease; one point had no crash to measure.
    crashStallMs: { count: 3, p50: leaseMs / 2, p99: times === 15 ? NaN : leaseMs + 400, max: 0 },
    heartbeatWritesPerWorkerSecond: 0,
    heartbeatWritesPerSecond: heartbeatMs === null ? 0 : (4 * 1000) / heartbeatMs,
    throughputPerSecond: 25,
    simulatedMs: 20_000,
    wallMs: 10,
    steps: 100,
  };
  return {
    leaseTimesP999: times,
    heartbeatFraction: fraction,
    result,
    overBudget: [],
    pareto: false,
  };
}

function doc(budgets: TuneDocument['budgets'], recommended = 13): TuneDocument {
  const points = TIMES.flatMap((t) => FRACTIONS.map((f) => point(t, f)));
  points[0]!.pareto = true;
  points[recommended >= 0 ? recommended : 0]!.pareto = true;
  return {
    tuneVersion: 1,
    name: 'send-mail',
    seed: 7,
    handler: { source: 'log-normal', p50Ms: 120, p999Ms: P999, units: 4 },
    workload: { workers: 4, jobs: 500, maxAttempts: 5, rttMs: 1, pollMs: 200 },
    faults: {
      crashesPerWorkerHour: 6,
      restartAfterMs: 10_000,
      pausesPerWorkerHour: 60,
      pause: { dist: 'fixed', ms: 300 },
      partitionsPerWorkerHour: 1,
      partition: { dist: 'fixed', ms: 2_000 },
    },
    budgets,
    points,
    recommended,
    reasons: [],
    simulatedJobs: points.length * 500,
    wallMs: 100,
    simulatedJobsPerSecond: 1,
    confirmation: [],
    onQueue: [],
  };
}

const BUDGETS = { duplicatesPer1000: 5, p99StallMs: 45_000, heartbeatWritesPerSecond: 10 };

interface Axis {
  type: string;
  logBase?: number;
  min?: number;
  max?: number;
  name: string;
  nameLocation: string;
  nameGap: number;
}
interface MarkLine {
  xAxis?: number;
  yAxis?: number;
  name: string;
}
interface Series {
  name: string;
  symbol?: string;
  symbolSize?: number;
  label?: { show: boolean };
  data: { value: [number, number] }[];
  markLine?: { data: MarkLine[] };
}
interface Option {
  legend: { type: string; top: number };
  title: { top: number };
  grid: { top: number; bottom: number; left: number };
  xAxis: Axis;
  yAxis: Axis;
  series: Series[];
}

function charts(d: TuneDocument): Record<string, Option> {
  return Object.fromEntries(tuneCharts(d).map((c) => [c.id, c.option as unknown as Option]));
}
const marks = (o: Option): MarkLine[] => o.series.flatMap((s) => s.markLine?.data ?? []);

describe('tune.html charts', () => {
  it('put lease ratios, heartbeat periods, stalls and write rates on log axes, duplicates on linear ones', () => {
    const c = charts(doc(BUDGETS));
    expect(c.dup!.xAxis).toMatchObject({ type: 'log', logBase: 2, min: 0.5, max: 16 });
    expect(c.dup!.yAxis).toMatchObject({ type: 'value', min: 0 });
    expect(c.stall!.xAxis).toMatchObject({ type: 'log', logBase: 2 });
    // 1.4 s to 30.2 s of stall, and the 45 s budget: 1 s to 100 s.
    expect(c.stall!.yAxis).toMatchObject({ type: 'log', logBase: 10, min: 1_000, max: 100_000 });
    expect(c.load!.xAxis).toMatchObject({ type: 'log', logBase: 10, min: 100, max: 100_000 });
    expect(c.load!.yAxis).toMatchObject({ type: 'log', logBase: 10 });
    expect(c.pareto!.xAxis).toMatchObject({ type: 'value', min: 0 });
    expect(c.pareto!.yAxis).toMatchObject({ type: 'log', logBase: 10 });
    // Every log axis bounds all its points, which must be positive to be drawn.
    for (const o of Object.values(c)) {
      for (const [axis, i] of [
        [o.xAxis, 0],
        [o.yAxis, 1],
      ] as const) {
        if (axis.type !== 'log') continue;
        for (const s of o.series) {
          for (const d of s.data) {
            expect(d.value[i]).toBeGreaterThanOrEqual(axis.min!);
            expect(d.value[i]).toBeLessThanOrEqual(axis.max!);
          }
        }
      }
    }
  });

  it('draw every budget of the document, and the p99.9, inside their axes', () => {
    const c = charts(doc(BUDGETS));
    expect(marks(c.dup!)).toEqual([
      expect.objectContaining({ xAxis: 1, name: 'lease = handler p99.9 (2000ms)' }),
      expect.objectContaining({ yAxis: 5, name: 'budget 5/1000' }),
    ]);
    expect(marks(c.stall!)).toEqual([
      expect.objectContaining({ xAxis: 1 }),
      expect.objectContaining({ yAxis: 45_000, name: 'recovery budget 45000ms' }),
    ]);
    expect(marks(c.load!)).toEqual([
      expect.objectContaining({ yAxis: 10, name: 'budget 10 writes/s' }),
    ]);
    expect(marks(c.pareto!)).toEqual([
      expect.objectContaining({ xAxis: 5 }),
      expect.objectContaining({ yAxis: 45_000 }),
    ]);
    // A line outside its axis's range is not drawn: each axis reaches its lines.
    for (const o of Object.values(c)) {
      for (const m of marks(o)) {
        const [axis, v] = m.xAxis !== undefined ? [o.xAxis, m.xAxis] : [o.yAxis, m.yAxis!];
        expect(v).toBeGreaterThanOrEqual(axis.min!);
        expect(v).toBeLessThanOrEqual(axis.max ?? Infinity);
      }
    }
    // The duplicate axis reaches the budget even when every point is under it.
    expect(c.dup!.yAxis.max).toBeGreaterThanOrEqual(120);
    const quiet = doc({ duplicatesPer1000: 500 });
    expect(charts(quiet).dup!.yAxis.max).toBeGreaterThanOrEqual(500);
  });

  it('leave out the lines of budgets the document does not have', () => {
    const c = charts(doc({ p99StallMs: 45_000 }));
    expect(marks(c.dup!).map((m) => m.name)).toEqual(['lease = handler p99.9 (2000ms)']);
    expect(marks(c.load!)).toEqual([]);
    expect(marks(c.pareto!).map((m) => m.yAxis)).toEqual([45_000]);
  });

  it('mark the recommended point apart, on every chart it belongs to', () => {
    const d = doc(BUDGETS, 13); // 3 × p99.9 = 6 s, heartbeat 0.1 × lease = 600 ms
    const c = charts(d);
    for (const id of ['dup', 'stall', 'load', 'pareto']) {
      const rec = c[id]!.series.find((s) => s.name === 'recommended');
      expect(rec, id).toMatchObject({ symbol: 'pin', label: { show: true } });
      expect(rec!.symbolSize).toBeGreaterThan(20);
      expect(rec!.data).toHaveLength(1);
    }
    expect(c.dup!.series.find((s) => s.name === 'recommended')!.data[0]!.value).toEqual([3, 0]);
    expect(c.load!.series.find((s) => s.name === 'recommended')!.data[0]!.value[0]).toBe(600);
    // No recommendation, no pin; a recommended point without a heartbeat has none on the load chart.
    expect(charts(doc(BUDGETS, -1)).dup!.series.map((s) => s.name)).not.toContain('recommended');
    expect(charts(doc(BUDGETS, 12)).load!.series.map((s) => s.name)).not.toContain('recommended');
  });

  it('keep title, legend and axis names apart', () => {
    for (const o of Object.values(charts(doc(BUDGETS)))) {
      expect(o.legend).toMatchObject({ type: 'scroll' });
      expect(o.legend.top).toBeGreaterThan(o.title.top + 16);
      expect(o.grid.top).toBeGreaterThanOrEqual(o.legend.top + 28);
      expect(o.xAxis).toMatchObject({ nameLocation: 'middle' });
      expect(o.yAxis).toMatchObject({ nameLocation: 'middle' });
      expect(o.xAxis.nameGap + 14).toBeLessThanOrEqual(o.grid.bottom);
      expect(o.yAxis.nameGap + 14).toBeLessThanOrEqual(o.grid.left);
    }
  });

  it('are what the page draws, loading ECharts from beside it', () => {
    const d = doc(BUDGETS);
    const html = renderTuneHtml(d);
    expect(html).toContain('<script src="assets/echarts.min.js"></script>');
    expect(html.length).toBeLessThan(100_000);
    const drawn = runPageScripts(html);
    expect(drawn.map((c) => c.element)).toEqual(['dup', 'stall', 'load', 'pareto']);
    expect(drawn.map((c) => c.options[0])).toEqual(
      JSON.parse(
        JSON.stringify(
          tuneCharts(d).map((c) => c.option),
          (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v),
        ),
      ),
    );
  });
});
