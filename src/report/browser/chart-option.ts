/** The timeline chart's option: its series, legend, zoom, axes and toolbox. */
import type { EChartsOption, SeriesOption } from 'echarts';
import type { TimelineData } from '../timeline-types.js';
import { claimSeries, faultSeries, laneSeries, starvedSeries } from './band-series.js';
import type { GridMargins } from './chart-style.js';
import { round } from './page-text.js';
import { citedSeries, markerSeries, pointSeries } from './point-series.js';
import type { TimelineView } from './timeline-view.js';

/** Series that draw but are no entry of the legend: the stripes, and the ripples of a focus. */
const UNLISTED = new Set(['lanes', 'cited by the selected evidence']);

/** The whole option of the chart, `width` px wide, at its first drawing. */
export function chartOption(
  data: TimelineData,
  view: TimelineView,
  grid: GridMargins,
  width: number,
): EChartsOption {
  const inc = view.incident;
  const series: SeriesOption[] = [
    laneSeries(data, view),
    faultSeries(data, view),
    starvedSeries(data, view),
    claimSeries(data, view),
    ...pointSeries(data, view),
    ...markerSeries(data, view, 'violation', '#d50000'),
    ...markerSeries(data, view, 'warning', '#ffa000'),
    citedSeries(view),
  ];
  const legendNames = series.flatMap((s) =>
    typeof s.name === 'string' && !UNLISTED.has(s.name) ? [s.name] : [],
  );
  const speed = inc
    ? round(1 / inc.scale) === 1
      ? 'in real time'
      : round(1 / inc.scale) + '× faster'
    : '';
  return {
    animation: false,
    grid: { ...grid },
    // One scrolling row, so that however many kinds a run has, the legend stays above the grid.
    legend: {
      type: 'scroll',
      top: 4,
      left: grid.left,
      right: grid.right,
      data: legendNames,
      textStyle: { fontSize: 11 },
    },
    tooltip: { trigger: 'item', confine: true, enterable: false },
    toolbox: {
      right: 8,
      top: 26,
      feature: {
        dataZoom: { yAxisIndex: 'none' },
        restore: {},
        saveAsImage: { name: 'timeline' },
      },
    },
    // The whole run first: a reader judges where to zoom once they have seen all of it.
    dataZoom: [
      { type: 'inside', xAxisIndex: 0, filterMode: 'weakFilter', start: 0, end: 100 },
      {
        type: 'slider',
        xAxisIndex: 0,
        filterMode: 'weakFilter',
        start: 0,
        end: 100,
        bottom: 14,
        height: 22,
        showDataShadow: false,
        labelFormatter: (v: number) => view.relText(v),
      },
    ],
    // About one tick per 120 px, and a label that would touch its neighbour is left out
    // (incident clock labels are twelve characters wide).
    xAxis: {
      type: 'value',
      min: 0,
      max: Math.max(data.endT, 1),
      name: inc
        ? `the incident's clock, UTC (replayed ${speed})`
        : 'ms since start (database clock)',
      nameLocation: 'middle',
      nameGap: 32,
      splitNumber: Math.max(2, Math.floor((width - grid.left - grid.right) / 120)),
      axisLine: { onZero: false },
      axisLabel: {
        hideOverlap: true,
        showMaxLabel: false,
        formatter: (v: number) =>
          inc ? view.incidentText(v).replace(/\.000$/, '') : round(v) + 'ms',
      },
      splitLine: { lineStyle: { color: '#e0e0e0' } },
    },
    yAxis: {
      type: 'value',
      inverse: true,
      min: -0.5,
      max: view.lanes.length - 0.5,
      interval: 1,
      axisLabel: { show: false },
      splitLine: { show: false },
      axisTick: { show: false },
    },
    series,
  };
}
