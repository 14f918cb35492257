/**
 * `<scenario>.timeline.html`: one scenario's history as a page that opens anywhere without a
 * network — the stylesheet, the script and the data are inlined; ECharts is the report
 * folder's one copy (`assets/echarts.min.js`, see `echarts-asset.ts`), loaded by a relative
 * path. The parts a reader needs first are rendered on the server, so they are there even
 * before (or without) the script: the verdict per checker, the list of violations linking to
 * their markers, and the marker elements themselves (`id="v-<checker>-<n>" class="violation
 * marker"`), which the script then positions over the chart.
 */
import { ECHARTS_ASSET } from './echarts-asset.js';
import { escapeHtml as h, inlineJson } from './escape.js';
import { databaseTime } from './format-time.js';
import { withQueue } from './scenario-labels.js';
import { clockDuration, clockTime, speedUp } from './timeline-clock.js';
import { timelineScript } from './timeline-script.js';
import { TIMELINE_STYLE } from './timeline-style.js';
import type { TimelineData, TimelineIncident, TimelineMarker } from './timeline-types.js';

/** Colors of claim bars by how the claim ended (the script uses the same). */
const CLAIM_KEY: [string, string][] = [
  ['acked', '#43a047'],
  ['failed', '#fb8c00'],
  ['expired', '#e57373'],
  ['replaced', '#8e24aa'],
  ['open', '#90a4ae'],
];

/**
 * Renders the page; `echartsSrc` is the URL of ECharts' browser build relative to the page —
 * by default the run folder's copy, for a page written into the run folder (see `assetSrc`).
 */
export function renderTimelineHtml(data: TimelineData, echartsSrc: string = ECHARTS_ASSET): string {
  const title = withQueue(data.label, data.queue);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${h(title)} — leaseproof timeline</title>
<style>${TIMELINE_STYLE}</style>
</head>
<body>
<header>
<h1>${h(title)} <span class="verdict verdict-${data.verdict}">${data.verdict === 'invalid' ? 'INVALID' : data.verdict}</span></h1>
<p class="meta">${metaLine(data)}</p>
${data.terms.length === 0 ? '' : `<ul class="terms">\n${data.terms.map((t) => `<li>${h(t)}</li>`).join('\n')}\n</ul>`}
<ul class="checkers">
${data.checkers.map(checkerChip).join('\n')}
</ul>
</header>
<section id="verdict">
${markerList(
  data.markers.filter((m) => m.severity === 'violation'),
  'violation',
  data.incident,
)}
${markerList(
  data.markers.filter((m) => m.severity === 'warning'),
  'warning',
  data.incident,
)}
</section>
<div id="chart-wrap">
<div id="chart" role="img" aria-label="Timeline of ${h(title)}: one lane per worker"></div>
<div id="markers">
${data.markers.map(markerElement).join('\n')}
</div>
</div>
<section id="details" hidden></section>
<section class="key">Claim bars:${CLAIM_KEY.map(([name, color]) => `<span class="swatch" style="background:${color}"></span>${name}`).join('')}. A thin tail after an expired bar is work its worker went on doing (a zombie). Shaded bands are faults: on a worker's lane, or across every lane for the database. Grey dashed bands are harness starvation: a worker's thread kept from running by the machine's load, which no fault explains; a timing verdict they account for is unknown, not invalid. Scroll or drag the slider to zoom; hover for details; ${h(timesAre(data))}.</section>
<script type="application/json" id="timeline-data">${inlineJson(data)}</script>
<script src="${h(echartsSrc)}"></script>
<script>${timelineScript()}</script>
</body>
</html>
`;
}

/**
 * Seed, lease, length and start. A replay's are the incident's own (its lease of 30 s, not the
 * 1000 ms it ran with at 1/30); the replay's lease goes beside them, as the queue's terms and
 * the tooltips' database times are the replay's.
 */
function metaLine(data: TimelineData): string {
  const { lease, incident } = data;
  const d = (ms: number): string => clockDuration(ms, incident);
  const settings = `lease ${d(lease.durationMs)}, heartbeat ${d(lease.heartbeatMs)}, extend by ${d(lease.extendByMs)}, poll ${d(lease.pollMs)}`;
  const length = `${d(data.endT)} long${data.complete ? '' : ' (history cut short)'}`;
  const started = `started ${h(databaseTime(data.startedAt))} on the database clock`;
  if (incident === undefined) return `seed ${data.seed} · ${settings} · ${length} · ${started}`;
  return (
    `seed ${data.seed} · in the incident's time: ${settings} · ${length} · ` +
    `replayed ${speedUp(incident)} (lease ${clockDuration(lease.durationMs)}, ${clockDuration(data.endT)} long), ${started}`
  );
}

/** What the times on the page are, for the key under the chart. */
function timesAre(data: TimelineData): string {
  return data.incident === undefined
    ? 'times are ms since the start and on the database clock'
    : `times are the incident's own clock (UTC), the replay's stretched back to its pace (it ran ${speedUp(data.incident)}); tooltips add the replay's database clock`;
}

function checkerChip(c: TimelineData['checkers'][number]): string {
  const warned = c.verdict === 'valid' && c.note !== '';
  // `n/a` is no CSS class name.
  const cls = warned ? 'warned' : c.verdict === 'n/a' ? 'na' : c.verdict;
  const title = [c.counts, c.note].filter(Boolean).join(' — ');
  return `<li class="chip ${cls}" title="${h(title)}">${c.id} ${h(c.checker)}: ${c.verdict}${warned ? ' (warnings)' : ''}</li>`;
}

function markerList(
  markers: TimelineMarker[],
  severity: 'violation' | 'warning',
  incident: TimelineIncident | undefined,
): string {
  if (markers.length === 0) {
    return severity === 'violation'
      ? '<h2>Violations</h2>\n<p class="none">No violations.</p>'
      : '';
  }
  const heading = severity === 'violation' ? 'Violations' : 'Warnings (examples)';
  const items = markers.map(
    (m) =>
      `<li><a href="#${h(m.id)}" data-marker="${h(m.id)}"><span class="inv">${m.invariant} ${h(m.checker)}</span> job ${h(m.job)} at ${clockTime(m.t, incident)}: ${h(m.message)}</a></li>`,
  );
  return `<h2>${heading} (${markers.length})</h2>\n<ol class="${severity}-list">\n${items.join('\n')}\n</ol>`;
}

function markerElement(m: TimelineMarker): string {
  const cls = m.severity === 'violation' ? 'violation marker' : 'warning-marker marker';
  return `<div class="${cls}" id="${h(m.id)}" title="${h(`${m.invariant} ${m.checker}, job ${m.job}: ${m.message}`)}" hidden></div>`;
}
