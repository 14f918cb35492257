/**
 * How the page maps the data onto the chart and into words: lane rows to y values, and times to
 * the text the tooltips, the axis and the details panel show.
 */
import type { TimelineData, TimelineIncident, TimelineLane } from '../timeline-types.js';
import { round } from './page-text.js';

/** The data's geometry and clocks, as every part of the page reads them. */
export interface TimelineView {
  /** The lanes, or one placeholder lane when the run had no workers (an empty chart). */
  readonly lanes: readonly TimelineLane[];
  /** The replayed incident whose clock the page shows, if any. */
  readonly incident: TimelineIncident | undefined;
  /** The rows of a lane. */
  rowsOf(lane: number): number;
  /** The y value of a row's centre line: lane `i` spans `i ± 0.4`, split evenly into rows. */
  yOf(lane: number, row: number): number;
  /** A timeline time on the incident's clock (`hh:mm:ss.mmm`, UTC). Only for an incident. */
  incidentText(t: number): string;
  /** A timeline time as the page's clock shows it: the incident's, or `+12.5ms`. */
  relText(t: number): string;
  /** A time for tooltips: the page's clock, then the database clock in small print. */
  when(t: number): string;
  /** A lane's label: its worker id, and the incident's name for it when replaying one. */
  laneName(id: string): string;
}

/** The view of `data`. */
export function timelineView(data: TimelineData): TimelineView {
  const lanes = data.lanes.length > 0 ? data.lanes : [{ id: '(no workers)', rows: 1 }];
  const inc = data.incident;
  const rowsOf = (lane: number): number => lanes[lane]?.rows || 1;
  // A replayed incident shows its own clock: the replay's time stretched back by 1 / scale.
  const incidentText = (t: number): string => {
    if (inc === undefined) throw new Error('incidentText: the page shows no incident');
    const epochMs = Math.round(inc.anchorEpochMs + (t - inc.anchorRel) / inc.scale);
    return new Date(epochMs).toISOString().slice(11, 23);
  };
  const relText = (t: number): string => (inc ? incidentText(t) : '+' + round(t) + 'ms');
  // The database clock keeps microseconds; a Date keeps milliseconds, so add them by hand.
  const dbText = (t: number): string => {
    const micros = Math.round((data.startedAt + t) * 1000);
    const whole = Math.floor(micros / 1000);
    const rest = micros - whole * 1000;
    const iso = new Date(whole).toISOString();
    return rest === 0 ? iso : iso.slice(0, -1) + String(rest).padStart(3, '0') + 'Z';
  };
  return {
    lanes,
    incident: inc,
    rowsOf,
    yOf: (lane, row) => lane - 0.4 + (0.8 * (row + 0.5)) / rowsOf(lane),
    incidentText,
    relText,
    when: (t) => relText(t) + ' <span class="db">db ' + dbText(t) + '</span>',
    laneName: (id) => {
      const name = inc?.names[id];
      return name ? id + ' ' + name : id;
    },
  };
}
