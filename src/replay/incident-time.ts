/**
 * An incident's own clock: times as a postmortem writes them — ISO 8601 stamps, `HH:MM:SS[.mmm]`
 * on the incident's date, or offsets from its start (`+90s`) — and the time scale that
 * compresses every duration of the incident uniformly for the replay.
 */
import { parseDuration } from '../duration.js';

/** Why a time or a scale could not be read: the text and what was expected. */
export class IncidentTimeError extends Error {
  constructor(
    readonly found: string,
    readonly expected: string,
  ) {
    super(`found ${found}; expected ${expected}`);
    this.name = 'IncidentTimeError';
  }
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?(Z|[+-]\d{2}:?\d{2})?$/;
const CLOCK = /^(\d{1,2}):(\d{2}):(\d{2})(\.\d{1,6})?$/;
const OFFSET = /^\+/;

/** Epoch ms of an ISO 8601 stamp (a stamp without a zone is UTC). */
export function parseStamp(text: string): number {
  const m = ISO.exec(text.trim());
  if (m === null) {
    throw new IncidentTimeError(
      JSON.stringify(text),
      'an ISO 8601 stamp like 2026-03-14T14:02:00Z',
    );
  }
  const zone = m[8] ?? 'Z';
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${m[7] ?? ''}${zone}`);
  if (Number.isNaN(ms) || Number(m[2]) > 12 || Number(m[4]) > 23 || Number(m[5]) > 59) {
    throw new IncidentTimeError(JSON.stringify(text), 'a real date and time');
  }
  return ms;
}

/**
 * Ms since the incident's start of an event time: an ISO stamp, `HH:MM:SS[.mmm]` on the start's
 * (UTC) date, or `+<duration>`. A time before the start is an error.
 */
export function incidentOffset(text: string, startMs: number): number {
  const value = text.trim();
  let at: number;
  if (OFFSET.test(value)) {
    try {
      return parseDuration(value.slice(1));
    } catch {
      throw new IncidentTimeError(JSON.stringify(text), 'an offset like +90s or +1m30s');
    }
  }
  const clock = CLOCK.exec(value);
  if (clock !== null) {
    const [h, m, s] = [Number(clock[1]), Number(clock[2]), Number(clock[3])];
    if (h > 23 || m > 59 || s > 59) {
      throw new IncidentTimeError(JSON.stringify(text), 'a time of day HH:MM:SS');
    }
    const day = new Date(startMs);
    at =
      Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), h, m, s) +
      Math.round(Number(clock[4] ?? 0) * 1000);
  } else {
    try {
      at = parseStamp(value);
    } catch {
      throw new IncidentTimeError(
        JSON.stringify(text),
        'a time: an ISO 8601 stamp, HH:MM:SS[.mmm] on the incident’s date, or an offset like +90s',
      );
    }
  }
  if (at < startMs) {
    throw new IncidentTimeError(
      JSON.stringify(text),
      `a time at or after the incident's start (${new Date(startMs).toISOString()})`,
    );
  }
  return at - startMs;
}

/** A time scale: `1/30`, `0.05` or `1` (no compression); in (0, 1]. */
export function parseTimeScale(text: string | number): number {
  const value =
    typeof text === 'number'
      ? text
      : /^\s*(\d+(\.\d+)?)\s*\/\s*(\d+(\.\d+)?)\s*$/.test(text)
        ? Number(text.split('/')[0]) / Number(text.split('/')[1])
        : Number(text);
  if (!Number.isFinite(value) || value <= 0 || value > 1) {
    throw new IncidentTimeError(JSON.stringify(text), 'a time scale in (0, 1], like 1/30 or 0.05');
  }
  return value;
}

/**
 * A time scale as the file wrote it, for people: `1/30` stays `1/30` (its value, 0.0333…, says
 * less), a decimal in its shortest form (`0.050` → `0.05`). Call it on text `parseTimeScale`
 * accepted.
 */
export function formatTimeScale(text: string | number): string {
  if (typeof text === 'number') return String(text);
  const fraction = /^\s*(\S+?)\s*\/\s*(\S+?)\s*$/.exec(text);
  if (fraction !== null)
    return `${shortNumber(fraction[1] ?? '')}/${shortNumber(fraction[2] ?? '')}`;
  return shortNumber(text);
}

function shortNumber(text: string): string {
  const value = Number(text);
  return Number.isFinite(value) ? String(value) : text.trim();
}

/** The incident's clock as text: `14:02:39.100` (UTC), with the date when it is not the start's. */
export function formatIncidentTime(epochMs: number, startMs: number): string {
  const iso = new Date(Math.round(epochMs)).toISOString();
  const sameDay = iso.slice(0, 10) === new Date(startMs).toISOString().slice(0, 10);
  const time = iso.slice(11, 23).replace(/\.000$/, '');
  return sameDay ? time : `${iso.slice(0, 10)} ${time}`;
}
