/**
 * The tune page's four charts as ECharts options — plain data, built here rather than in the
 * page's script so that what they show (which axis is logarithmic, where a budget line is) is
 * decided and tested in TypeScript; the page only hands them to ECharts.
 *
 * A sweep's leases span 0.5 to 15 × the p99.9 and its heartbeat periods and stalls several
 * orders of magnitude, so those axes are logarithmic: on a linear one the short leases, where
 * duplicates and stalls change fastest, were squashed into the first tenth of the width.
 */
import type { EChartsOption, LineSeriesOption, ScatterSeriesOption } from 'echarts';
import { fmt, stallOf, type SweptPoint } from './sweep.js';
import type { TuneDocument } from './tune-report.js';

/** One chart: the id of its element on the page and its option. */
export interface TuneChart {
  id: 'dup' | 'stall' | 'load' | 'pareto';
  option: EChartsOption;
}

/** A numeric axis as `axis` chooses it; the chart adds where its name goes. */
type Axis =
  | { type: 'log'; logBase: number; name: string; min: number; max: number }
  | { type: 'value'; name: string; min: number; max?: number };
type MarkLineData = NonNullable<NonNullable<LineSeriesOption['markLine']>['data']>;

const BUDGET_COLOR = '#c62828';
const REFERENCE_COLOR = '#546e7a';
const RECOMMENDED_COLOR = '#d50000';

/** The charts, in page order. */
export function tuneCharts(doc: TuneDocument): TuneChart[] {
  const { budgets } = doc;
  const rec = doc.points[doc.recommended];
  const ratio = (p: SweptPoint): number => p.leaseTimesP999;
  const dup = (p: SweptPoint): number => p.result.duplicatesPer1000;
  // The stall the budgets and the recommendation judge: measured, or its bound when no crash hit.
  const stall = stallOf;
  const beats = doc.points.filter((p) => p.result.point.heartbeatMs !== null);
  const p999Line = vertical(1, `lease = handler p99.9 (${doc.handler.p999Ms}ms)`, REFERENCE_COLOR);
  const leaseAxis = axis('lease / handler p99.9', doc.points.map(ratio), [1], 2);
  return [
    {
      id: 'dup',
      option: chart(
        'Duplicate executions per 1,000 jobs',
        leaseAxis,
        axis('dup/1000', doc.points.map(dup), [budgets.duplicatesPer1000]),
        withLines(byHeartbeat(doc, ratio, dup), [
          p999Line,
          horizontal(budgets.duplicatesPer1000, (v) => `budget ${v}/1000`),
        ]),
        recommended(rec, ratio, dup),
      ),
    },
    {
      id: 'stall',
      option: chart(
        'p99 stall after a crash (ms)',
        leaseAxis,
        axis('p99 stall (ms)', doc.points.map(stall), [budgets.p99StallMs], 10),
        withLines(byHeartbeat(doc, ratio, stall), [
          p999Line,
          horizontal(budgets.p99StallMs, (v) => `recovery budget ${v}ms`),
        ]),
        recommended(rec, ratio, stall),
      ),
    },
    {
      id: 'load',
      option: chart(
        'Heartbeat writes per second (all workers)',
        axis('heartbeat period (ms)', beats.map(heartbeatMs), [], 10),
        axis(
          'writes/s',
          beats.map((p) => p.result.heartbeatWritesPerSecond),
          [budgets.heartbeatWritesPerSecond],
          10,
        ),
        withLines(
          [
            scatter(
              'points',
              beats.map((p) => item(p, heartbeatMs(p), p.result.heartbeatWritesPerSecond)),
            ),
          ],
          [horizontal(budgets.heartbeatWritesPerSecond, (v) => `budget ${v} writes/s`)],
        ),
        rec?.result.point.heartbeatMs === null
          ? undefined
          : recommended(rec, heartbeatMs, (p) => p.result.heartbeatWritesPerSecond),
      ),
    },
    {
      id: 'pareto',
      option: chart(
        'Pareto frontier: duplicates vs p99 stall',
        axis('dup/1000', doc.points.map(dup), [budgets.duplicatesPer1000]),
        axis('p99 stall (ms)', doc.points.map(stall), [budgets.p99StallMs], 10),
        withLines(
          [
            scatter(
              'points',
              doc.points.map((p) => item(p, dup(p), stall(p))),
            ),
            {
              type: 'line',
              name: 'frontier',
              symbol: 'none',
              data: doc.points
                .filter((p) => p.pareto)
                .sort((a, b) => dup(a) - dup(b) || stall(a) - stall(b))
                .map((p) => item(p, dup(p), stall(p))),
            },
          ],
          [
            vertical(
              budgets.duplicatesPer1000,
              `budget ${budgets.duplicatesPer1000}/1000`,
              BUDGET_COLOR,
            ),
            horizontal(budgets.p99StallMs, (v) => `recovery budget ${v}ms`),
          ],
        ),
        recommended(rec, dup, stall),
      ),
    },
  ];
}

const heartbeatMs = (p: SweptPoint): number => p.result.point.heartbeatMs ?? NaN;

/**
 * Title on top, then one scrolling row of legend, then the grid; axis names sit beside their
 * axes, the y one rotated in the left margin, so neither the legend nor a long axis name can
 * run into the other.
 */
function chart(
  title: string,
  xAxis: Axis,
  yAxis: Axis,
  series: (LineSeriesOption | ScatterSeriesOption)[],
  highlight: ScatterSeriesOption | undefined,
): EChartsOption {
  return {
    animation: false,
    title: { text: title, left: 8, top: 4, textStyle: { fontSize: 13 } },
    legend: { type: 'scroll', top: 28, left: 8, right: 8 },
    tooltip: { trigger: 'item', confine: true },
    grid: { top: 64, left: 72, right: 24, bottom: 48 },
    xAxis: { ...xAxis, nameLocation: 'middle', nameGap: 28 },
    yAxis: { ...yAxis, nameLocation: 'middle', nameGap: 52, nameRotate: 90 },
    series: highlight === undefined ? series : [...series, highlight],
  };
}

/**
 * A value axis over `values` that also reaches every `marks` (a budget line outside the axis's
 * range is not drawn). Logarithmic in `logBase` when the values are all positive and span an
 * order of magnitude or more, bounded by whole powers of the base so that its ticks are round;
 * linear from 0 otherwise (duplicates, where 0 is the value that matters most, cannot go on a
 * log axis).
 */
function axis(
  name: string,
  values: readonly number[],
  marks: readonly (number | undefined)[],
  logBase?: number,
): Axis {
  const all = [...values, ...marks].filter(
    (v): v is number => v !== undefined && Number.isFinite(v),
  );
  const lo = Math.min(...all);
  const hi = Math.max(...all);
  if (logBase !== undefined && all.length > 0 && lo > 0 && hi / lo >= 10) {
    const exponent = (v: number): number => Math.log(v) / Math.log(logBase);
    // The nudges keep an exact power (0.5 is 2^-0.99999…) from widening the axis by a step.
    const min = logBase ** Math.floor(exponent(lo) + 1e-9);
    const max = logBase ** Math.ceil(exponent(hi) - 1e-9);
    return { type: 'log', logBase, name, min, max };
  }
  return {
    type: 'value',
    name,
    min: 0,
    ...(all.length > 0 && hi > 0 && { max: niceCeil(hi * 1.1) }),
  };
}

/** The smallest of 1, 2, 2.5, 5 × 10^k at or above `v` (v > 0). */
function niceCeil(v: number): number {
  const step = 10 ** Math.floor(Math.log10(v));
  const m = [1, 2, 2.5, 5, 10].find((f) => f * step >= v * (1 - 1e-12)) ?? 10;
  return m * step;
}

/** One line per heartbeat setting, through the points in x order. */
function byHeartbeat(
  doc: TuneDocument,
  x: (p: SweptPoint) => number,
  y: (p: SweptPoint) => number,
): LineSeriesOption[] {
  const groups = new Map<string, SweptPoint[]>();
  for (const p of doc.points) {
    const key =
      p.result.point.heartbeatMs === null
        ? 'no heartbeat'
        : `heartbeat ${p.heartbeatFraction}×lease`;
    groups.set(key, [...(groups.get(key) ?? []), p]);
  }
  return [...groups].map(([name, points]) => ({
    type: 'line',
    name,
    symbolSize: 7,
    data: [...points].sort((a, b) => x(a) - x(b)).map((p) => item(p, x(p), y(p))),
  }));
}

function scatter(name: string, data: ScatterSeriesOption['data']): ScatterSeriesOption {
  return { type: 'scatter', name, symbolSize: 8, data };
}

/** A data item whose tooltip names the point's settings (and an unmeasured stall as a bound). */
function item(p: SweptPoint, x: number, y: number): { name: string; value: [number, number] } {
  const r = p.result.point;
  const bound = Number.isNaN(p.result.crashStallMs.p99) ? ', stall not measured: lease + poll' : '';
  return {
    name: `lease ${r.leaseMs}ms, heartbeat ${r.heartbeatMs === null ? 'none' : `${r.heartbeatMs}ms`}, extend ${r.extendByMs}ms${bound}`,
    value: [finite(x), finite(y)],
  };
}

const finite = (v: number): number => (Number.isFinite(v) ? v : NaN);

/** The recommended point, drawn over the rest: a large labelled pin in its own series. */
function recommended(
  rec: SweptPoint | undefined,
  x: (p: SweptPoint) => number,
  y: (p: SweptPoint) => number,
): ScatterSeriesOption | undefined {
  if (rec === undefined) return undefined;
  return {
    type: 'scatter',
    name: 'recommended',
    symbol: 'pin',
    symbolSize: 34,
    z: 10,
    itemStyle: { color: RECOMMENDED_COLOR, borderColor: '#ffffff', borderWidth: 1 },
    label: {
      show: true,
      position: 'right',
      formatter: `recommended: ${rec.result.point.leaseMs}ms`,
      fontWeight: 'bold',
      color: RECOMMENDED_COLOR,
    },
    data: [item(rec, x(rec), y(rec))],
  };
}

/**
 * Budget and reference lines ride on the first series rather than on a data-less series of
 * their own, which ECharts has been known not to draw them on (apache/echarts#888); hiding
 * that series from the legend hides them too.
 */
function withLines(
  series: (LineSeriesOption | ScatterSeriesOption)[],
  lines: (MarkLineData[number] | undefined)[],
): (LineSeriesOption | ScatterSeriesOption)[] {
  const data = lines.filter((l) => l !== undefined);
  const [first, ...rest] = series;
  if (first === undefined || data.length === 0) return series;
  const markLine = {
    silent: true,
    symbol: 'none',
    animation: false,
    data,
  } satisfies LineSeriesOption['markLine'];
  return [{ ...first, markLine }, ...rest];
}

function horizontal(
  value: number | undefined,
  label: (v: string) => string,
): MarkLineData[number] | undefined {
  if (value === undefined) return undefined;
  return {
    yAxis: value,
    name: label(fmt(value)),
    lineStyle: { color: BUDGET_COLOR, type: 'dashed', width: 1.5 },
    label: { formatter: '{b}', position: 'insideEndTop', color: BUDGET_COLOR },
  };
}

function vertical(
  value: number | undefined,
  label: string,
  color: string,
): MarkLineData[number] | undefined {
  if (value === undefined) return undefined;
  return {
    xAxis: value,
    name: label,
    lineStyle: { color, type: 'dashed', width: 1.5 },
    label: { formatter: '{b}', position: 'insideEndTop', color },
  };
}
