/**
 * The timeline chart's fixed looks: its margins, lane height, claim bar colours and the marks of
 * point events. Fault band colours are not here: they are the fault-kind table's.
 */
import type { ClaimEnd } from '../../history/derive-types.js';
import type { TimelinePointKind } from '../timeline-types.js';

/** The grid's margins in px. */
export interface GridMargins {
  readonly left: number;
  readonly right: number;
  readonly top: number;
  readonly bottom: number;
}

/**
 * Room around the grid. Left: the lane names, which an incident's worker names make longer.
 * Below, top down: tick labels, the axis name, then the zoom slider.
 */
export function gridMargins(incident: boolean): GridMargins {
  return { left: incident ? 160 : 96, right: 32, top: 56, bottom: 96 };
}

/** The height of one lane, px. */
export const LANE_PX = 72;

/** Claim bars by how the claim ended (the key under the chart, timeline-html.ts, lists the same). */
export const CLAIM_COLOURS: Readonly<Record<ClaimEnd, string>> = {
  acked: '#43a047',
  failed: '#fb8c00',
  expired: '#e57373',
  replaced: '#8e24aa',
  open: '#90a4ae',
};

/** How one kind of point event is drawn: a scatter series of its own, named in the legend. */
export interface PointStyle {
  readonly kind: TimelinePointKind;
  /** Its legend entry and tooltip title. */
  readonly name: string;
  /** An ECharts symbol. */
  readonly symbol: string;
  readonly size: number | readonly [number, number];
  readonly color: string;
  /** A border, drawn 1 px wide, where the fill alone would vanish against a bar. */
  readonly border?: string;
  /** Stacking: later, more decisive events draw over earlier ones. */
  readonly z: number;
}

/** Every kind of point event, in legend order. */
export const POINT_STYLES: readonly PointStyle[] = [
  {
    kind: 'heartbeat',
    name: 'heartbeat (extension)',
    symbol: 'rect',
    size: [2, 16],
    color: '#1b3a1f',
    z: 3,
  },
  {
    kind: 'heartbeat-failed',
    name: 'heartbeat failed',
    symbol: 'rect',
    size: [3, 18],
    color: '#e53935',
    z: 4,
  },
  {
    kind: 'effect',
    name: 'effect',
    symbol: 'circle',
    size: 7,
    color: '#fdd835',
    border: '#5d4037',
    z: 5,
  },
  {
    kind: 'expiry',
    name: 'expiry',
    symbol: 'path://M2 0L5 3L8 0L10 2L7 5L10 8L8 10L5 7L2 10L0 8L3 5L0 2Z',
    size: 12,
    color: '#b71c1c',
    z: 6,
  },
  {
    kind: 'lost',
    name: 'worker saw claim lost',
    symbol: 'triangle',
    size: 10,
    color: '#6d4c41',
    z: 6,
  },
  { kind: 'abort', name: 'handler aborted', symbol: 'roundRect', size: 9, color: '#37474f', z: 6 },
  {
    kind: 'release',
    name: 'released (fail / reap)',
    symbol: 'emptyCircle',
    size: 11,
    color: '#ef6c00',
    z: 6,
  },
  {
    kind: 'ack',
    name: 'ack committed',
    symbol: 'diamond',
    size: 15,
    color: '#1b5e20',
    border: '#ffffff',
    z: 7,
  },
  {
    kind: 'ack-rejected',
    name: 'ack rejected',
    symbol: 'emptyDiamond',
    size: 15,
    color: '#424242',
    z: 7,
  },
  {
    kind: 'ack-indeterminate',
    name: 'ack indeterminate',
    symbol: 'diamond',
    size: 15,
    color: '#64b5f6',
    border: '#0d47a1',
    z: 7,
  },
];
