/**
 * The clock a timeline page speaks in: ms since the scenario's start, or — for a replayed
 * incident — the incident's own, the replay's times and durations stretched back by 1 / scale.
 * The page's script does the same sums for the chart and its tooltips; these are for the parts
 * rendered on the server, so that a replay's header does not call a 30 s lease 1000 ms.
 */
import { formatIncidentTime } from '../replay/incident-time.js';
import { formatDuration } from '../duration.js';
import { roundMs } from './format-time.js';
import type { TimelineIncident } from './timeline-types.js';

/** A page duration in the page's clock: `1000ms`, or the incident's `30s`. */
export function clockDuration(ms: number, incident?: TimelineIncident): string {
  if (incident === undefined) return `${roundMs(ms)}ms`;
  // Whole ms: the compression rounded each duration to µs, so 1 s at 1/30 comes back 999.99 ms.
  return formatDuration(Math.round(ms / incident.scale));
}

/** A page time in the page's clock: `+1234.5ms`, or the incident's `14:02:11.250` (UTC). */
export function clockTime(t: number, incident?: TimelineIncident): string {
  if (incident === undefined) return `+${roundMs(t)}ms`;
  const epochMs = incident.anchorEpochMs + (t - incident.anchorRel) / incident.scale;
  return formatIncidentTime(epochMs, incident.anchorEpochMs);
}

/** How much faster the replay ran than the incident: `30×`, `real time` at scale 1. */
export function speedUp(incident: TimelineIncident): string {
  const times = roundMs(1 / incident.scale);
  return times === 1 ? 'in real time' : `${times}× faster`;
}
