/**
 * The browser side of a timeline page, bundled by esbuild into one script that the page inlines
 * (see ../timeline-script.ts). It reads the data from the page's JSON element, draws it with
 * ECharts — lanes as a value axis, claims and fault bands as custom series, point events as
 * scatter series — and keeps the violation markers the server rendered positioned over their
 * pins, so that links to them work and the list at the top can focus each one.
 */
import type { TimelineData } from '../timeline-types.js';
import { chartOption } from './chart-option.js';
import { LANE_PX, gridMargins } from './chart-style.js';
import { focusMarker, placeMarkers, type MarkerContext } from './marker-focus.js';
import { markerIdOf } from './point-series.js';
import { timelineView } from './timeline-view.js';

/** An element the server always renders; missing, the page is not a timeline page. */
function required(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`timeline page: no element #${id}`);
  return el;
}

const data = JSON.parse(required('timeline-data').textContent ?? '') as TimelineData;
const view = timelineView(data);
const grid = gridMargins(data.incident !== undefined);

const chartEl = required('chart');
chartEl.style.height = grid.top + grid.bottom + view.lanes.length * LANE_PX + 'px';
const chart = echarts.init(chartEl, null, { renderer: 'canvas' });
chart.setOption(chartOption(data, view, grid, chartEl.clientWidth));

const context: MarkerContext = { data, view, chart, chartEl, grid };
chart.on('finished', () => placeMarkers(context));
window.addEventListener('resize', () => {
  chart.resize();
  placeMarkers(context);
});
document.querySelectorAll('a[data-marker]').forEach((a) => {
  a.addEventListener('click', (event) => {
    event.preventDefault();
    const id = a.getAttribute('data-marker');
    if (id !== null) focusMarker(context, id, true);
  });
});
chart.on('click', (p) => {
  const id = markerIdOf(p.data);
  if (id !== undefined) focusMarker(context, id, false);
});
placeMarkers(context);
const hash = decodeURIComponent(location.hash.slice(1));
if (hash) focusMarker(context, hash, true);
document.body.setAttribute('data-rendered', 'true');
