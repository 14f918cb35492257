/**
 * What `leaseproof tune` writes: a terminal table, `tune.json` (versioned like `verdict.json`:
 * fields are only ever added within a version) and an HTML page of ECharts charts that loads
 * the library from beside it (`assets/echarts.min.js`, see `echarts-asset.ts`).
 */
import { ECHARTS_ASSET } from '../report/echarts-asset.js';
import { escapeHtml as h, inlineJson } from '../report/escape.js';
import { textTable } from '../text-table.js';
import { Z_999 } from '../scenario/durations.js';
import type { Confirmation } from './confirm.js';
import type { QueuePoint } from './queue-sim.js';
import type { TuneSpec } from './load-tune.js';
import { fmt, type SweepOutcome } from './sweep.js';
import { tuneCharts } from './tune-charts.js';

/** The version of `tune.json`'s schema. */
export const TUNE_JSON_VERSION = 1;

/** `tune.json`. */
export interface TuneDocument {
  tuneVersion: number;
  name: string;
  seed: number;
  handler: {
    source: string;
    p50Ms: number;
    p999Ms: number;
    p99Ms?: number;
    /** The p99 of the fitted log-normal, to hold against a given p99. */
    fittedP99Ms?: number;
    units: number;
  };
  workload: TuneSpec['workload'];
  faults: TuneSpec['faults'];
  budgets: TuneSpec['budgets'];
  points: SweepOutcome['points'];
  recommended: number;
  reasons: string[];
  simulatedJobs: number;
  wallMs: number;
  simulatedJobsPerSecond: number;
  confirmation: Confirmation[];
  /** The best points simulated again on a queue's own SQL (`tune --queue`); empty without. */
  onQueue: QueuePoint[];
}

// The 99th percentile of the standard normal distribution.
const Z_99 = 2.3263478740408408;

/** Builds `tune.json`'s content. */
export function tuneDocument(
  spec: TuneSpec,
  outcome: SweepOutcome,
  confirmation: Confirmation[] = [],
  onQueue: QueuePoint[] = [],
): TuneDocument {
  const { handler } = spec;
  const fittedP99Ms =
    handler.duration.dist === 'lognormal'
      ? Math.exp(
          Math.log(handler.p50Ms) + (Math.log(handler.p999Ms / handler.p50Ms) / Z_999) * Z_99,
        )
      : undefined;
  return {
    tuneVersion: TUNE_JSON_VERSION,
    name: spec.name,
    seed: spec.seed,
    handler: {
      source: handler.source,
      p50Ms: handler.p50Ms,
      p999Ms: handler.p999Ms,
      ...(handler.p99Ms !== undefined && { p99Ms: handler.p99Ms }),
      ...(fittedP99Ms !== undefined && { fittedP99Ms: Math.round(fittedP99Ms * 1000) / 1000 }),
      units: handler.units,
    },
    workload: spec.workload,
    faults: spec.faults,
    budgets: spec.budgets,
    points: outcome.points,
    recommended: outcome.recommended,
    reasons: outcome.reasons,
    simulatedJobs: outcome.simulatedJobs,
    wallMs: outcome.wallMs,
    simulatedJobsPerSecond: outcome.simulatedJobs / (outcome.wallMs / 1000),
    confirmation,
    onQueue,
  };
}

/** `tune.json` as written: stable key order, two-space indent. NaN (nothing measured) is null. */
export function renderTuneJson(doc: TuneDocument): string {
  return (
    JSON.stringify(
      doc,
      (_key, value: unknown) =>
        typeof value === 'number' && !Number.isFinite(value) ? null : value,
      2,
    ) + '\n'
  );
}

/** The terminal table: one row per point, the recommended one marked `>`. */
export function renderTuneTable(doc: TuneDocument): string {
  const header = [
    '',
    'lease',
    '×p99.9',
    'heartbeat',
    'extend',
    'dup/1000',
    'fault',
    'lease-dup',
    'p99 stall',
    'hb writes/s',
    'budget',
  ];
  const rows = doc.points.map((p, i) => {
    const r = p.result;
    return [
      i === doc.recommended ? '>' : p.pareto ? '*' : '',
      `${r.point.leaseMs}ms`,
      fmt(p.leaseTimesP999),
      r.point.heartbeatMs === null ? 'none' : `${r.point.heartbeatMs}ms`,
      `${r.point.extendByMs}ms`,
      fmt(r.duplicatesPer1000),
      fmt(r.faultDuplicatesPer1000),
      fmt(r.leaseDuplicatesPer1000),
      Number.isNaN(r.crashStallMs.p99) ? '—' : `${fmt(r.crashStallMs.p99)}ms`,
      fmt(r.heartbeatWritesPerSecond),
      p.overBudget.length === 0 ? 'ok' : 'over',
    ];
  });
  return textTable(header, rows).join('\n');
}

/**
 * The HTML page: charts of the sweep, the recommendation, the confirmation and the points
 * simulated on a queue's own SQL. `echartsSrc` is
 * the URL of ECharts' browser build relative to the page (by default the copy beside it).
 */
export function renderTuneHtml(doc: TuneDocument, echartsSrc: string = ECHARTS_ASSET): string {
  const rec = doc.points[doc.recommended];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(doc.name)} — leaseproof tune</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#222}
h1{font-size:20px;margin:0 0 4px}.meta{color:#555;margin:0 0 12px}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(460px,1fr));gap:16px}
.chart{height:340px;border:1px solid #ddd;border-radius:6px}
table{border-collapse:collapse;margin:12px 0}td,th{border:1px solid #ddd;padding:3px 8px;text-align:right}
.rec{background:#e8f5e9}.over{color:#b71c1c}
</style>
</head>
<body>
<h1>${h(doc.name)}: ${rec === undefined ? 'no point meets the budgets' : `recommended lease ${rec.result.point.leaseMs}ms`}</h1>
<p class="meta">handler ${h(doc.handler.source)} · p50 ${doc.handler.p50Ms}ms · p99.9 ${doc.handler.p999Ms}ms${doc.handler.p99Ms === undefined ? '' : ` · p99 given ${doc.handler.p99Ms}ms`}${doc.handler.fittedP99Ms === undefined ? '' : `, fitted ${doc.handler.fittedP99Ms}ms`} · ${doc.workload.workers} workers · ${doc.workload.jobs} jobs per point · seed ${doc.seed} · ${doc.simulatedJobs} jobs simulated in ${(doc.wallMs / 1000).toFixed(1)}s</p>
<section id="recommendation"><h2>Recommendation</h2><ul>${doc.reasons.map((r) => `<li>${h(r)}</li>`).join('')}</ul></section>
<div class="charts">
<div class="chart" id="dup"></div>
<div class="chart" id="stall"></div>
<div class="chart" id="load"></div>
<div class="chart" id="pareto"></div>
</div>
${confirmationTable(doc)}
${queueTable(doc)}
<script src="${h(echartsSrc)}"></script>
<script>
var charts = ${inlineJson(tuneCharts(doc))};
${TUNE_SCRIPT}
</script>
</body>
</html>
`;
}

function confirmationTable(doc: TuneDocument): string {
  if (doc.confirmation.length === 0) return '';
  const rows = doc.confirmation
    .map(
      (c) =>
        `<tr><td>${c.label}</td><td>${c.scenario.lease.durationMs}ms</td><td>${fmt(c.simulated.duplicatesPer1000)}</td><td>${fmt(c.measured.duplicatesPer1000)}</td><td>${fmt(c.simulated.stallP50Ms)}</td><td>${fmt(c.measured.stallP50Ms)}</td><td class="${c.agrees ? '' : 'over'}">${h(c.verdict)}</td></tr>`,
    )
    .join('');
  return `<section id="confirmation"><h2>Real runs</h2><table><tr><th>point</th><th>lease (run)</th><th>dup/1000 sim</th><th>dup/1000 real</th><th>stall p50 sim</th><th>stall p50 real</th><th>agreement</th></tr>${rows}</table></section>`;
}

function queueTable(doc: TuneDocument): string {
  if (doc.onQueue.length === 0) return '';
  const rows = doc.onQueue
    .map((q) => {
      const model = doc.points[q.index]!.result;
      const r = q.result;
      const cells =
        r === undefined
          ? '<td></td><td></td><td></td><td></td><td></td><td></td>'
          : `<td>${fmt(model.duplicatesPer1000)}</td><td>${fmt(r.duplicatesPer1000)}</td><td>${fmt(model.crashStallMs.p99)}</td><td>${fmt(r.crashStallMs.p99)}</td><td>${fmt(model.heartbeatWritesPerSecond)}</td><td>${fmt(r.heartbeatWritesPerSecond)}</td>`;
      const judged = q.holds ? 'holds' : [q.verdict, ...q.findings, ...q.overBudget].join('; ');
      return `<tr><td>${h(q.label)}</td><td>${model.point.leaseMs}ms</td>${cells}<td class="${q.holds ? '' : 'over'}">${h(judged)}</td></tr>`;
    })
    .join('');
  return `<section id="on-queue"><h2>On ${h(doc.onQueue[0]!.queue)}'s own SQL (PGlite, simulated time)</h2><table><tr><th>point</th><th>lease</th><th>dup/1000 model</th><th>dup/1000 queue</th><th>p99 stall model</th><th>p99 stall queue</th><th>hb writes/s model</th><th>hb writes/s queue</th><th>judged</th></tr>${rows}</table></section>`;
}

// Plain browser JavaScript, kept apart from the TypeScript so that the page runs it as written.
// The options are data (tune-charts.ts); the page only draws them.
const TUNE_SCRIPT = `
(function () {
  charts.forEach(function (c) { echarts.init(document.getElementById(c.id)).setOption(c.option); });
  document.body.setAttribute('data-charts', String(document.querySelectorAll('.chart canvas').length));
})();
`;
