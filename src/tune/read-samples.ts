/**
 * Measured handler durations for `tune`: a JSON array of numbers, or a CSV read with csv-parse.
 *
 * A CSV's first row is a header when any of its cells is not a number. One column is used as is,
 * header or not. Of several columns, the one named by `handler.samplesColumn` is used, else the
 * first header among duration_ms, duration (ms), duration and ms (case-insensitive); several
 * columns without such a header are refused rather than guessed at, since an id or a timestamp
 * column read as durations would silently skew every recommendation.
 */
import { readFile } from 'node:fs/promises';
import { CsvError, parse } from 'csv-parse/sync';
import { describeValue } from '../scenario/document-path.js';
import { LeaseproofError } from '../errors.js';

/** Header names taken as the duration column, most specific first. */
export const DURATION_COLUMNS = ['duration_ms', 'duration (ms)', 'duration', 'ms'] as const;

/** A samples file that cannot be read as durations: where, what was found, what was expected. */
export class SamplesError extends LeaseproofError {
  constructor(
    /** The file, as it was named to `readSamples`. */
    readonly file: string,
    /** Where in the file, e.g. `line 7` or `item 3`; empty for the file as a whole. */
    readonly where: string,
    /** What is there, e.g. `"abc"`. */
    readonly found: string,
    /** What should be there, e.g. `a number of ms in column duration_ms`. */
    readonly expected: string,
    options?: { cause?: unknown },
  ) {
    super(
      'LEASEPROOF_BAD_SAMPLES',
      `${file}${where === '' ? '' : ` ${where}`}: expected ${expected}, got ${found}`,
      options,
    );
  }
}

/** How to read a samples file. */
export interface ReadSamplesOptions {
  /** The CSV column to read, by its header (case-insensitive). */
  column?: string | undefined;
  /** The file's name in messages (default: `path`), e.g. as the tune file wrote it. */
  name?: string | undefined;
}

/** Reads durations in ms from a JSON array or a CSV file; throws a `SamplesError` if it cannot. */
export async function readSamples(
  path: string,
  options: ReadSamplesOptions = {},
): Promise<number[]> {
  const name = options.name ?? path;
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const found = code === 'ENOENT' ? 'no such file' : message;
    throw new SamplesError(name, '', found, 'a CSV or JSON file of durations in ms', {
      cause: error,
    });
  }
  const samples = text.trimStart().startsWith('[')
    ? jsonSamples(text, name)
    : csvSamples(text, name, options.column);
  if (samples.length === 0) {
    throw new SamplesError(name, '', 'no durations', 'at least one duration in ms');
  }
  return samples;
}

// Plain decimals only: Number() would also take "", "0x10" and "Infinity".
const DECIMAL = /^(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;

function isDecimal(cell: string): boolean {
  return DECIMAL.test(cell);
}

function jsonSamples(text: string, name: string): number[] {
  let values: unknown;
  try {
    values = JSON.parse(text);
  } catch (error) {
    const found = error instanceof Error ? error.message : String(error);
    throw new SamplesError(name, '', found, 'a JSON array of durations in ms', { cause: error });
  }
  if (!Array.isArray(values)) {
    throw new SamplesError(name, '', describeValue(values), 'a JSON array of durations in ms');
  }
  return values.map((value, index) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new SamplesError(name, `item ${index + 1}`, describeValue(value), 'a number of ms');
    }
    return value;
  });
}

function csvSamples(text: string, name: string, column: string | undefined): number[] {
  const lines: number[] = [];
  let rows: string[][];
  try {
    rows = parse(text, {
      bom: true,
      trim: true,
      skip_empty_lines: true,
      on_record: (record, context) => {
        lines.push(context.lines);
        return record;
      },
    });
  } catch (error) {
    if (!(error instanceof CsvError)) throw error;
    const where = typeof error.lines === 'number' ? `line ${error.lines}` : '';
    throw new SamplesError(name, where, error.message, 'well-formed CSV', { cause: error });
  }
  const header = rows[0]?.some((cell) => !isDecimal(cell)) === true ? rows[0] : undefined;
  const index = pickColumn(header, rows[0]?.length ?? 0, name, column);
  const label = header?.[index] ?? `${index + 1}`;
  const start = header === undefined ? 0 : 1;
  return rows.slice(start).map((row, i) => {
    const cell = row[index] ?? '';
    if (!isDecimal(cell)) {
      throw new SamplesError(
        name,
        `line ${lines[start + i] ?? start + i + 1}`,
        describeValue(cell),
        `a number of ms in column ${label}`,
      );
    }
    return Number(cell);
  });
}

/** The index of the duration column, or a `SamplesError` that lists the columns there are. */
function pickColumn(
  header: string[] | undefined,
  width: number,
  name: string,
  column: string | undefined,
): number {
  const columns =
    header === undefined
      ? `${width} unnamed column${width === 1 ? '' : 's'}`
      : `columns ${header.join(', ')}`;
  const named = (wanted: string): number[] =>
    (header ?? []).flatMap((cell, i) => (cell.toLowerCase() === wanted.toLowerCase() ? [i] : []));
  const only = (wanted: string, matches: number[], source: string): number => {
    if (matches.length === 1) return matches[0] ?? 0;
    const count = matches.length === 0 ? 'a' : 'exactly one';
    throw new SamplesError(name, 'line 1', columns, `${count} column named ${wanted}${source}`);
  };
  if (column !== undefined) return only(column, named(column), ' (handler.samplesColumn)');
  if (width <= 1) return 0;
  for (const wanted of DURATION_COLUMNS) {
    const matches = named(wanted);
    if (matches.length > 0) return only(wanted, matches, '');
  }
  throw new SamplesError(
    name,
    'line 1',
    columns,
    `a header naming the duration column (${DURATION_COLUMNS.join(', ')}), or ` +
      `handler.samplesColumn naming it`,
  );
}
