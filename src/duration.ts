import { LeaseproofError } from './errors.js';

/** A duration string that does not parse; the message says what was expected. */
export class DurationError extends LeaseproofError {
  constructor(message: string) {
    super('LEASEPROOF_BAD_DURATION', message);
  }
}

/** Milliseconds per unit, longest unit name first so `ms` is not read as `m` + `s`. */
const UNITS: Record<string, number> = {
  us: 0.001,
  µs: 0.001,
  ms: 1,
  s: 1_000,
  m: 60_000,
  h: 3_600_000,
};

const PART = /(\d+(?:\.\d+)?)(us|µs|ms|s|m|h)/y;

/** What a duration looks like, for messages and the schema's descriptions. */
export const DURATION_EXAMPLES = '500ms, 2s, 1m30s or 1h';

/**
 * Parses a human duration — `500ms`, `2s`, `5m`, `1h`, `1.5s`, `1m30s`, `250us` — into
 * milliseconds. With `signed`, a leading `+` or `-` is allowed (clock offsets: `+90s`, `-1h`);
 * without, a sign is an error, so that a negative wait is never silently taken. Throws a
 * `DurationError` that quotes the text and shows the expected shape.
 */
export function parseDuration(text: string, options: { signed?: boolean } = {}): number {
  const expected = options.signed
    ? `a signed duration like +90s, -1h or 0s`
    : `a duration like ${DURATION_EXAMPLES}`;
  const trimmed = text.trim();
  let rest = trimmed;
  let sign = 1;
  if (rest.startsWith('+') || rest.startsWith('-')) {
    if (!options.signed) {
      throw new DurationError(
        `"${text}" has a sign; expected ${expected} (no sign: only clock offsets take one)`,
      );
    }
    sign = rest.startsWith('-') ? -1 : 1;
    rest = rest.slice(1);
  }
  if (rest === '') throw new DurationError(`"${text}" is not a duration; expected ${expected}`);
  let total = 0;
  PART.lastIndex = 0;
  while (PART.lastIndex < rest.length) {
    const at = PART.lastIndex;
    const match = PART.exec(rest);
    if (match === null) {
      const hint = /^\d+(\.\d+)?$/.test(rest)
        ? ' (a unit is required: ms, s, m or h)'
        : /\s/.test(rest)
          ? ' (no spaces)'
          : '';
      throw new DurationError(
        `"${text}" is not a duration${hint}; expected ${expected}` +
          (at > 0 ? ` (could not read "${rest.slice(at)}")` : ''),
      );
    }
    total += Number(match[1]) * (UNITS[match[2] ?? ''] ?? Number.NaN);
  }
  return sign * total;
}

/** Formats milliseconds as the shortest readable duration (`1.5s`, `250ms`, `2m`, `-1h`). */
export function formatDuration(ms: number): string {
  const sign = ms < 0 ? '-' : '';
  const abs = Math.abs(ms);
  const unit = (value: number, name: string): string => `${sign}${Number(value.toFixed(3))}${name}`;
  if (abs >= 3_600_000 && abs % 60_000 === 0) return unit(abs / 3_600_000, 'h');
  if (abs >= 60_000 && abs % 1_000 === 0) return unit(abs / 60_000, 'm');
  if (abs >= 1_000) return unit(abs / 1_000, 's');
  if (abs >= 1 || abs === 0) return unit(abs, 'ms');
  return unit(abs * 1_000, 'us');
}

/** The pattern a duration string matches, for the JSON Schema (kept in step by a test). */
export const DURATION_PATTERN = '^(\\d+(\\.\\d+)?(us|µs|ms|s|m|h))+$';

/** The pattern a signed duration string matches. */
export const SIGNED_DURATION_PATTERN = '^[+-]?(\\d+(\\.\\d+)?(us|µs|ms|s|m|h))+$';
