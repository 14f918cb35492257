import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSamples, SamplesError, type ReadSamplesOptions } from '../../src/tune/read-samples.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'leaseproof-samples-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function read(text: string, options: ReadSamplesOptions = {}): Promise<number[]> {
  const path = join(dir, `s${Math.random().toString(36).slice(2)}.csv`);
  await writeFile(path, text);
  return readSamples(path, { name: 'durations.csv', ...options });
}

async function failure(text: string, options: ReadSamplesOptions = {}): Promise<SamplesError> {
  const error: unknown = await read(text, options).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SamplesError);
  return error as SamplesError;
}

describe('a single-column CSV', () => {
  it('is read with or without a header, whatever the header says', async () => {
    expect(await read('100\n120\n90\n')).toEqual([100, 120, 90]);
    expect(await read('duration_ms\n100\n120\n')).toEqual([100, 120]);
    expect(await read('Duration (ms)\r\n1.5\r\n2\r\n')).toEqual([1.5, 2]);
    expect(await read('\uFEFFelapsed\n\n7\n\n8\n')).toEqual([7, 8]);
  });

  it('names the file, the line and the column of a value that is not a duration', async () => {
    const error = await failure('duration_ms\n1\n2\n3\n4\n5\nabc\n');
    expect(error.message).toBe(
      'durations.csv line 7: expected a number of ms in column duration_ms, got "abc"',
    );
    expect((await failure('1\n-2\n')).message).toBe(
      'durations.csv line 2: expected a number of ms in column 1, got "-2"',
    );
    // Counted in the file's own lines, blank ones included, so an editor jumps to the value.
    expect((await failure('ms\n\n1\n\nx\n')).where).toBe('line 5');
  });

  it('refuses a file with no durations', async () => {
    expect((await failure('duration_ms\n')).message).toBe(
      'durations.csv: expected at least one duration in ms, got no durations',
    );
  });
});

describe('a multi-column CSV', () => {
  it('reads the duration column, not the first one', async () => {
    expect(await read('id,duration_ms\n1,100\n2,250\n')).toEqual([100, 250]);
  });

  it('recognises the usual headers, in any case', async () => {
    expect(await read('id,"Duration (ms)"\n1,100\n')).toEqual([100]);
    expect(await read('DURATION,id\n100,1\n')).toEqual([100]);
    expect(await read('job,ms\na,3\n')).toEqual([3]);
  });

  it('prefers the header that names the unit', async () => {
    expect(await read('duration,duration_ms\n0.1,100\n')).toEqual([100]);
  });

  it('reads the column samplesColumn names', async () => {
    expect(await read('id,Latency_MS,duration\n1,40,9\n', { column: 'latency_ms' })).toEqual([40]);
    const missing = await failure('id,duration_ms\n1,2\n', { column: 'latency_ms' });
    expect(missing.message).toBe(
      'durations.csv line 1: expected a column named latency_ms (handler.samplesColumn), ' +
        'got columns id, duration_ms',
    );
  });

  it('lists the columns when none is recognisable, rather than guessing', async () => {
    const error = await failure('id,elapsed\n1,100\n');
    expect(error.message).toBe(
      'durations.csv line 1: expected a header naming the duration column (duration_ms, ' +
        'duration (ms), duration, ms), or handler.samplesColumn naming it, got columns id, elapsed',
    );
    expect((await failure('1,100\n2,200\n')).found).toBe('2 unnamed columns');
    expect((await failure('ms,MS\n1,2\n')).expected).toBe('exactly one column named ms');
  });

  it('names the line of a ragged row', async () => {
    const error = await failure('id,duration_ms\n1,100\n2,200,3\n');
    expect(error.where).toBe('line 3');
    expect(error.expected).toBe('well-formed CSV');
  });
});

describe('a JSON samples file', () => {
  it('is an array of numbers of ms', async () => {
    expect(await read('[1, 2.5, 3]')).toEqual([1, 2.5, 3]);
    expect((await failure('[1, "2"]')).message).toBe(
      'durations.csv item 2: expected a number of ms, got "2"',
    );
  });
});

describe('a missing samples file', () => {
  it('says so', async () => {
    const error: unknown = await readSamples(join(dir, 'absent.csv')).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /absent\.csv: expected a CSV or JSON file of durations in ms, got no such file$/,
    );
  });
});
