/**
 * The custom series that draw spans of time: the lanes' stripes and names, fault bands, harness
 * starvation bands and claim bars (with a zombie's tail).
 */
import type { CustomSeriesOption, CustomSeriesRenderItemReturn } from 'echarts';
import { FAULT_KIND_TABLE } from '../../faults/fault-kinds.js';
import type { TimelineData } from '../timeline-types.js';
import { CLAIM_COLOURS } from './chart-style.js';
import { clip, gridOf, pixelOf, rectBetween } from './grid-geometry.js';
import { esc, tip } from './page-text.js';
import type { TimelineView } from './timeline-view.js';

type Children = NonNullable<Extract<CustomSeriesRenderItemReturn, { type: 'group' }>['children']>;

/** One stripe per lane, white and grey in turn, with the lane's name left of the grid. */
export function laneSeries(data: TimelineData, view: TimelineView): CustomSeriesOption {
  return {
    name: 'lanes',
    type: 'custom',
    silent: true,
    z: 0,
    data: view.lanes.map((_, i) => [0, data.endT, i]),
    encode: { x: [0, 1], y: 2 },
    renderItem: (params, api) => {
      const i = params.dataIndex;
      const grid = gridOf(params);
      const top = pixelOf(api, 0, i - 0.5)[1];
      const bottom = pixelOf(api, 0, i + 0.5)[1];
      // Lane names are drawn here rather than as axis labels: a value axis puts its ticks
      // where it likes, and rows need a value axis (a category axis has no fractions).
      return {
        type: 'group',
        children: [
          {
            type: 'rect',
            shape: {
              x: grid.x,
              y: Math.min(top, bottom),
              width: grid.width,
              height: Math.abs(bottom - top),
            },
            style: { fill: i % 2 ? '#f3f5f7' : '#ffffff' },
          },
          {
            type: 'text',
            style: {
              text: view.laneName(view.lanes[i]?.id ?? ''),
              x: grid.x - 10,
              y: (top + bottom) / 2,
              align: 'right',
              verticalAlign: 'middle',
              fill: '#1f2933',
              font: 'bold 13px sans-serif',
            },
          },
        ],
      };
    },
  };
}

/**
 * A band per fault, in its kind's colour from the fault-kind table: over its target's lane, or
 * over every lane for a database fault. Dashed when the history never saw it healed.
 */
export function faultSeries(data: TimelineData, view: TimelineView): CustomSeriesOption {
  const nLanes = view.lanes.length;
  return {
    name: 'faults',
    type: 'custom',
    z: 1,
    itemStyle: { color: '#a1887f' },
    data: data.faults.map((f, i) => [f.start, f.end, f.lane === null ? -1 : f.lane, i]),
    encode: { x: [0, 1], y: 2 },
    renderItem: (params, api) => {
      const f = data.faults[params.dataIndex];
      if (!f) return null;
      const y0 = f.lane === null ? -0.5 : f.lane - 0.5;
      const y1 = f.lane === null ? nLanes - 0.5 : f.lane + 0.5;
      const rect = clip(rectBetween(api, f.start, f.end, y0, y1, 3), params);
      if (!rect) return null;
      const color = FAULT_KIND_TABLE[f.fault].colour;
      return {
        type: 'group',
        children: [
          {
            type: 'rect',
            shape: rect,
            style: {
              fill: color,
              opacity: 0.16,
              stroke: color,
              lineWidth: 1,
              lineDash: f.open ? [4, 3] : false,
            },
          },
          {
            type: 'text',
            style: {
              text: f.fault + (f.lane === null ? ' (database)' : ''),
              x: rect.x + 4,
              y: rect.y + 3,
              fill: color,
              font: 'bold 11px sans-serif',
            },
          },
        ],
      };
    },
    tooltip: {
      formatter: (p) => {
        const f = data.faults[p.dataIndex];
        if (!f) return '';
        return tip(`fault ${f.fault} on ${f.target} (${f.id})`, [
          'from ' + view.when(f.start),
          'to ' + (f.open ? 'the end (never healed in the history)' : view.when(f.end)),
          f.detail ? esc(f.detail) : '',
        ]);
      },
    },
  };
}

/** A grey dashed band per window in which the machine kept a worker's thread from running. */
export function starvedSeries(data: TimelineData, view: TimelineView): CustomSeriesOption {
  return {
    name: 'starved',
    type: 'custom',
    z: 1,
    itemStyle: { color: '#616161' },
    data: data.starved.map((w, i) => [w.start, w.end, w.lane, i]),
    encode: { x: [0, 1], y: 2 },
    renderItem: (params, api) => {
      const w = data.starved[params.dataIndex];
      if (!w) return null;
      const rect = clip(rectBetween(api, w.start, w.end, w.lane - 0.5, w.lane + 0.5, 3), params);
      if (!rect) return null;
      const children: Children = [
        {
          type: 'rect',
          shape: rect,
          style: {
            fill: '#616161',
            opacity: 0.22,
            stroke: '#616161',
            lineWidth: 1,
            lineDash: [2, 2],
          },
        },
      ];
      if (rect.width > 60) {
        children.push({
          type: 'text',
          style: {
            text: 'starved',
            x: rect.x + 4,
            y: rect.y + rect.height - 14,
            fill: '#424242',
            font: 'bold 11px sans-serif',
          },
        });
      }
      return { type: 'group', children };
    },
    tooltip: {
      formatter: (p) => {
        const w = data.starved[p.dataIndex];
        if (!w) return '';
        return tip(`harness starved: ${w.worker}'s ${w.thread} thread`, [
          `kept from running for ${w.ms} ms, from ${view.when(w.start)} to ${view.when(w.end)}`,
          'timing verdicts that this accounts for are unknown, not invalid',
        ]);
      },
    },
  };
}

/**
 * A bar per claim from its grant to its end, coloured by how it ended and labelled with its job
 * where it is wide enough; after an expiry, a thin dashed tail to the last thing its worker went
 * on doing (a zombie).
 */
export function claimSeries(data: TimelineData, view: TimelineView): CustomSeriesOption {
  return {
    name: 'claims',
    type: 'custom',
    z: 2,
    itemStyle: { color: '#43a047' },
    data: data.claims.map((c, i) => [
      c.start,
      c.zombieEnd === null ? c.end : c.zombieEnd,
      view.yOf(c.lane, c.row),
      i,
    ]),
    encode: { x: [0, 1], y: 2 },
    renderItem: (params, api) => {
      const c = data.claims[params.dataIndex];
      if (!c) return null;
      const half = (0.8 / view.rowsOf(c.lane)) * 0.32;
      const y = view.yOf(c.lane, c.row);
      const color = CLAIM_COLOURS[c.ended];
      const children: Children = [];
      const bar = clip(rectBetween(api, c.start, c.end, y - half, y + half, 2), params);
      if (bar) {
        children.push({
          type: 'rect',
          shape: bar,
          style: { fill: color, stroke: '#263238', lineWidth: 0.5 },
        });
        const label = 'job ' + c.job + (c.attempt > 1 ? ' #' + c.attempt : '');
        if (bar.width > label.length * 6 + 10) {
          children.push({
            type: 'text',
            style: {
              text: label,
              x: bar.x + 4,
              y: bar.y + 2,
              verticalAlign: 'top',
              fill: '#ffffff',
              font: '10px sans-serif',
            },
          });
        }
      }
      if (c.zombieEnd !== null) {
        const a = pixelOf(api, c.end, y);
        const b = pixelOf(api, c.zombieEnd, y);
        const tail = clip(
          { x: a[0], y: a[1] - 2, width: Math.max(b[0] - a[0], 1), height: 4 },
          params,
        );
        if (tail) {
          children.push({
            type: 'rect',
            shape: tail,
            style: { fill: color, opacity: 0.55, stroke: color, lineDash: [3, 2] },
          });
        }
      }
      return { type: 'group', children };
    },
    tooltip: {
      formatter: (p) => {
        const c = data.claims[p.dataIndex];
        if (!c) return '';
        return tip(`claim ${c.attempt} of job ${c.job}`, [
          'holder ' + esc(c.holder) + ', ended <b>' + esc(c.ended) + '</b>',
          'granted ' + view.when(c.start),
          'bar ends ' + view.when(c.end),
          'deadline ' + view.when(c.deadline),
          `${c.extensions} extensions, ${c.effects} effects`,
          c.zombieEnd === null ? '' : 'work after expiry until ' + view.when(c.zombieEnd),
        ]);
      },
    },
  };
}
