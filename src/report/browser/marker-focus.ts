/**
 * The violation markers over the chart. The server rendered one element per marker (ids
 * `v-<checker>-<n>`, `w-<checker>-<n>`), so links to them work without the script; here each is
 * kept over its pin as the view changes, and focusing one zooms to its evidence, ripples the
 * events it cites and explains it in the details panel.
 */
import type { EChartsType } from 'echarts';
import type { TimelineData, TimelineMarker } from '../timeline-types.js';
import type { GridMargins } from './chart-style.js';
import { esc } from './page-text.js';
import { CITED_SERIES_ID, citedData } from './point-series.js';
import type { TimelineView } from './timeline-view.js';

/** What the markers act on. */
export interface MarkerContext {
  readonly data: TimelineData;
  readonly view: TimelineView;
  readonly chart: EChartsType;
  readonly chartEl: HTMLElement;
  readonly grid: GridMargins;
}

/** Shows each marker element over its pin while the pin is inside the grid, else hides it. */
export function placeMarkers({ data, view, chart, chartEl, grid }: MarkerContext): void {
  const width = chartEl.clientWidth;
  data.markers.forEach((m) => {
    const el = document.getElementById(m.id);
    if (!el) return;
    const [x, y] = chart.convertToPixel({ gridIndex: 0 }, [m.t, view.yOf(m.lane, m.row)]) ?? [];
    const inside =
      x !== undefined && y !== undefined && x >= grid.left - 1 && x <= width - grid.right + 1;
    el.hidden = !inside;
    if (inside) {
      el.style.left = x + 'px';
      el.style.top = y + 'px';
    }
  });
}

/** The details panel's account of `m`: its sentence, each cited event, the faults active. */
function showDetails(view: TimelineView, m: TimelineMarker): void {
  const details = document.getElementById('details');
  if (!details) return;
  details.hidden = false;
  details.innerHTML =
    '<h2>' +
    esc(m.invariant + ' ' + m.checker) +
    ' — job ' +
    esc(m.job) +
    '</h2>' +
    '<p>' +
    esc(m.message) +
    '</p><ol>' +
    m.cited
      .map(
        (c) =>
          '<li>' +
          view.when(c.t) +
          ' on <b>' +
          esc(view.lanes[c.lane]?.id ?? '?') +
          '</b>: ' +
          esc(c.role) +
          ' — ' +
          esc(c.text) +
          '</li>',
      )
      .join('') +
    '</ol>' +
    (m.faults.length
      ? '<p>Faults active: ' + m.faults.map((f) => esc(f)).join('; ') + '</p>'
      : '<p>No fault was active.</p>');
}

/**
 * Focuses the marker `id` (a link's, a pin's or the URL's): highlights it and its link, zooms
 * to its evidence, ripples the cited events, explains it, and puts it in the URL so the view
 * can be shared. `scroll` brings the chart into view, for a focus that came from elsewhere.
 */
export function focusMarker(context: MarkerContext, id: string, scroll: boolean): void {
  const { data, view, chart } = context;
  const m = data.markers.find((x) => x.id === id);
  if (!m) return;
  document.querySelectorAll('.focused').forEach((el) => el.classList.remove('focused'));
  document.getElementById(id)?.classList.add('focused');
  document.querySelector(`a[data-marker="${id}"]`)?.parentElement?.classList.add('focused');
  // Wide enough for the evidence, three leases, or a tenth of the run, whichever is widest,
  // on round 100 ms edges.
  const ts = m.cited.map((c) => c.t).concat([m.t]);
  const span = Math.max(
    data.lease.durationMs * 3,
    data.endT * 0.1,
    Math.max(...ts) - Math.min(...ts),
  );
  const from = Math.max(0, Math.floor((Math.min(...ts) - span / 2) / 100) * 100);
  const to = Math.min(data.endT, Math.ceil((from + span * 2) / 100) * 100);
  chart.dispatchAction({ type: 'dataZoom', dataZoomIndex: 0, startValue: from, endValue: to });
  chart.setOption({ series: [{ id: CITED_SERIES_ID, data: citedData(view, m.cited) }] });
  showDetails(view, m);
  if (scroll) {
    document.getElementById('chart-wrap')?.scrollIntoView({ behavior: 'smooth', block: 'center' });
  }
  // The DOM's types have it everywhere; a page opened in an old browser may not.
  if (history.replaceState) history.replaceState(null, '', '#' + id);
}
