/**
 * The scatter series that mark instants: one per kind of point event, the violation and warning
 * pins, and the ripples on the events the selected marker's evidence cites.
 */
import type { EffectScatterSeriesOption, ScatterSeriesOption } from 'echarts';
import type { TimelineCited, TimelineData, TimelineMarker } from '../timeline-types.js';
import { POINT_STYLES } from './chart-style.js';
import { esc, tip } from './page-text.js';
import type { TimelineView } from './timeline-view.js';

/** The series id by which focusing a marker replaces the cited events' data. */
export const CITED_SERIES_ID = 'cited';

/** A pin's data item: the marker id rides along, so a click on the pin can focus the marker. */
interface PinItem {
  value: [number, number];
  markerId: string;
}

/** A cited event's data item: what the ripple's tooltip says. */
interface CitedItem {
  value: [number, number];
  role: string;
  text: string;
}

/** One series per kind of point event the run had, in legend order. */
export function pointSeries(data: TimelineData, view: TimelineView): ScatterSeriesOption[] {
  return POINT_STYLES.flatMap((k): ScatterSeriesOption[] => {
    const points = data.points.filter((p) => p.kind === k.kind);
    if (points.length === 0) return [];
    return [
      {
        name: k.name,
        type: 'scatter',
        z: k.z,
        symbol: k.symbol,
        symbolSize: typeof k.size === 'number' ? k.size : [...k.size],
        itemStyle: {
          color: k.color,
          borderColor: k.border || k.color,
          borderWidth: k.border ? 1 : 0,
          opacity: 1,
        },
        large: points.length > 5000,
        // Effects sit low on the bar, under the job label, so that dense units stay readable.
        data: points.map((p) => [
          p.t,
          view.yOf(p.lane, p.row) + (k.kind === 'effect' ? 0.14 / view.rowsOf(p.lane) : 0),
        ]),
        tooltip: {
          formatter: (p) => {
            const e = points[p.dataIndex];
            return e ? tip(k.name, [view.when(e.t), esc(e.text)]) : '';
          },
        },
      },
    ];
  });
}

/**
 * The pins of one severity (`!` violations, `?` warnings' examples), or none when there are
 * none: an empty series would still take a legend entry.
 */
export function markerSeries(
  data: TimelineData,
  view: TimelineView,
  severity: TimelineMarker['severity'],
  color: string,
): ScatterSeriesOption[] {
  const markers = data.markers.filter((m) => m.severity === severity);
  if (markers.length === 0) return [];
  const items: PinItem[] = markers.map((m) => ({
    value: [m.t, view.yOf(m.lane, m.row)],
    markerId: m.id,
  }));
  return [
    {
      name: severity,
      type: 'scatter',
      z: 10,
      symbol: 'pin',
      symbolSize: 30,
      symbolOffset: [0, '-50%'],
      itemStyle: { color, borderColor: '#ffffff', borderWidth: 1 },
      label: {
        show: true,
        formatter: severity === 'violation' ? '!' : '?',
        color: '#ffffff',
        fontWeight: 'bold',
        offset: [0, -15],
      },
      data: items,
      tooltip: {
        formatter: (p) => {
          const m = markers[p.dataIndex];
          if (!m) return '';
          return tip(`${m.invariant} ${m.checker} (${m.severity}), job ${m.job}`, [
            view.when(m.t),
            esc(m.message),
          ]);
        },
      },
    },
  ];
}

/** The marker id of a clicked data item, if it is a pin. */
export function markerIdOf(item: unknown): string | undefined {
  if (typeof item !== 'object' || item === null || !('markerId' in item)) return undefined;
  return typeof item.markerId === 'string' ? item.markerId : undefined;
}

/** The cited events' ripples: empty until a marker is focused (see `citedData`). */
export function citedSeries(view: TimelineView): EffectScatterSeriesOption {
  return {
    id: CITED_SERIES_ID,
    name: 'cited by the selected evidence',
    type: 'effectScatter',
    z: 9,
    symbolSize: 14,
    rippleEffect: { scale: 2.6, brushType: 'stroke' },
    itemStyle: { color: '#d50000' },
    data: [],
    tooltip: {
      formatter: (p) => {
        // The items are the ones `citedData` made; ECharts hands them back untyped.
        const c = p.data as CitedItem;
        return tip(c.role, [view.when(c.value[0]), esc(c.text)]);
      },
    },
  };
}

/** The data of the cited series for a focused marker: one ripple per cited event. */
export function citedData(view: TimelineView, cited: readonly TimelineCited[]): CitedItem[] {
  return cited.map((c) => ({ value: [c.t, view.yOf(c.lane, c.row)], role: c.role, text: c.text }));
}
