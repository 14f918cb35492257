import { describe, expect, it } from 'vitest';
import { LeaseproofError } from '../../src/errors.js';
import {
  DURATION_PATTERN,
  DurationError,
  SIGNED_DURATION_PATTERN,
  formatDuration,
  parseDuration,
} from '../../src/duration.js';

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['2s', 2_000],
    ['5m', 300_000],
    ['1h', 3_600_000],
    ['1.5s', 1_500],
    ['1m30s', 90_000],
    ['1h30m', 5_400_000],
    ['250us', 0.25],
    ['250µs', 0.25],
    ['0s', 0],
    [' 2s ', 2_000],
  ])('%s is %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    ['+90s', 90_000],
    ['-1h', -3_600_000],
    ['-1m30s', -90_000],
    ['90s', 90_000],
  ])('signed: %s is %d ms', (text, ms) => {
    expect(parseDuration(text, { signed: true })).toBe(ms);
  });

  it.each([
    ['500', 'a unit is required'],
    ['2 s', 'no spaces'],
    ['2sec', 'could not read "ec"'],
    ['', 'is not a duration'],
    ['ms', 'is not a duration'],
    ['-2s', 'has a sign'],
    ['1d', 'is not a duration'],
  ])('rejects %j, saying what is wrong (%s) and what was expected', (text, why) => {
    let error: unknown;
    try {
      parseDuration(text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DurationError);
    expect(error).toBeInstanceOf(LeaseproofError);
    expect((error as DurationError).code).toBe('LEASEPROOF_BAD_DURATION');
    expect((error as Error).message).toContain(why);
    expect((error as Error).message).toContain(`"${text}"`);
    expect((error as Error).message).toContain('expected a duration like 500ms, 2s');
  });

  it('agrees with the patterns the schema publishes', () => {
    const unsigned = new RegExp(DURATION_PATTERN, 'u');
    const signed = new RegExp(SIGNED_DURATION_PATTERN, 'u');
    for (const text of ['500ms', '1m30s', '250us', '1.5s', '-1h', '+90s', '2 s', '500', '1d']) {
      const parses = (options: { signed?: boolean }): boolean => {
        try {
          parseDuration(text, options);
          return true;
        } catch {
          return false;
        }
      };
      expect(unsigned.test(text), text).toBe(parses({}));
      expect(signed.test(text), text).toBe(parses({ signed: true }));
    }
  });
});

describe('formatDuration', () => {
  it.each([
    [500, '500ms'],
    [1_500, '1.5s'],
    [120_000, '2m'],
    [3_600_000, '1h'],
    [-3_600_000, '-1h'],
    [0.25, '250us'],
    [0, '0ms'],
  ])('%d ms reads %s, which parses back', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text, { signed: true })).toBe(ms);
  });
});
