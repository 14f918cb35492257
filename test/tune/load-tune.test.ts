import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScenarioError } from '../../src/scenario/scenario-error.js';
import { loadTuneFile } from '../../src/tune/load-tune.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'leaseproof-tune-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const VALID = `name: t
handler: { p50: 100ms, p999: 1s }
grid: { lease: { timesP999: [1, 2] }, heartbeat: { fractionOfLease: [0, 0.25] } }
budgets: { duplicatesPer1000: 1 }
`;

async function tuneError(text: string): Promise<ScenarioError> {
  const file = join(dir, `t${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(file, text);
  const error: unknown = await loadTuneFile(file).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ScenarioError);
  expect((error as Error).message).toMatch(
    new RegExp(`^invalid tune file ${file.replace(/[.]/g, '\\.')}`),
  );
  return error as ScenarioError;
}

describe('tune files', () => {
  it('loads the example with its defaults and the lease grid in multiples of the p99.9', async () => {
    const spec = await loadTuneFile('examples/tune.yaml');
    expect(spec.name).toBe('send-mail');
    expect(spec.handler).toMatchObject({ p50Ms: 120, p999Ms: 2_000, p99Ms: 900, units: 4 });
    expect(spec.grid.leaseMs).toEqual([1_000, 2_000, 4_000, 6_000, 10_000, 20_000, 30_000]);
    expect(spec.grid.heartbeatFractions).toEqual([0, 0.1, 0.25, 0.5]);
    expect(spec.budgets).toEqual({
      duplicatesPer1000: 5,
      p99StallMs: 45_000,
      heartbeatWritesPerSecond: 10,
    });
    expect(spec.faults.restartAfterMs).toBe(10_000);
  });

  it('reads measured durations from a CSV beside the file', async () => {
    await writeFile(join(dir, 'durations.csv'), 'duration_ms\n100\n120\n90\n4000\n');
    const file = join(dir, 'samples.yaml');
    await writeFile(file, VALID.replace('{ p50: 100ms, p999: 1s }', '{ samples: durations.csv }'));
    const spec = await loadTuneFile(file);
    expect(spec.handler.duration).toEqual({ dist: 'empirical', samplesMs: [100, 120, 90, 4000] });
    expect(spec.handler.p999Ms).toBe(4000);
    expect(spec.grid.leaseMs).toEqual([4000, 8000]);
  });

  it('reads the duration column of a multi-column CSV, or the one samplesColumn names', async () => {
    await writeFile(join(dir, 'jobs.csv'), 'id,duration_ms,latency\n1,100,7\n2,200,8\n');
    const file = join(dir, 'columns.yaml');
    await writeFile(file, VALID.replace('{ p50: 100ms, p999: 1s }', '{ samples: jobs.csv }'));
    expect((await loadTuneFile(file)).handler.duration).toEqual({
      dist: 'empirical',
      samplesMs: [100, 200],
    });
    await writeFile(
      file,
      VALID.replace('{ p50: 100ms, p999: 1s }', '{ samples: jobs.csv, samplesColumn: Latency }'),
    );
    expect((await loadTuneFile(file)).handler.duration).toEqual({
      dist: 'empirical',
      samplesMs: [7, 8],
    });
  });

  it('places a bad sample at its line in the CSV, under handler.samples', async () => {
    await writeFile(join(dir, 'bad.csv'), 'duration_ms\n100\nabc\n');
    const error = await tuneError(
      VALID.replace('{ p50: 100ms, p999: 1s }', '{ samples: bad.csv }'),
    );
    expect(error.message).toMatch(
      /handler\.samples: found "abc" \(bad\.csv line 3\); expected a number of ms in column duration_ms$/m,
    );
    const orphan = await tuneError(VALID.replace('p999: 1s', 'p999: 1s, samplesColumn: ms'));
    expect(orphan.message).toMatch(/handler\.samplesColumn: found a column \(ms\) but no samples/);
  });

  it('names the file, the place and what was expected for each problem', async () => {
    const unknown = await tuneError(VALID.replace('p50: 100ms', 'p50: 100ms, p95: 300ms'));
    expect(unknown.problems[0]).toMatchObject({ path: 'handler.p95', line: 2 });
    const duration = await tuneError(VALID.replace('p999: 1s', 'p999: 1 sec'));
    expect(duration.message).toMatch(
      /handler\.p999: found "1 sec"; expected a duration like 500ms/,
    );
    const order = await tuneError(VALID.replace('p999: 1s', 'p999: 50ms'));
    expect(order.message).toMatch(
      /handler\.p999: found 50ms; expected a p99\.9 above the p50 \(100ms\)/,
    );
    const both = await tuneError(
      VALID.replace('timesP999: [1, 2]', 'timesP999: [1], values: [2s]'),
    );
    expect(both.message).toMatch(/grid\.lease: found both; expected one of timesP999/);
    const missing = await tuneError(
      'name: t\nhandler: {}\ngrid: { lease: { values: [1s] } }\nbudgets: {}\n',
    );
    expect(missing.message).toMatch(/handler: found no p50; expected p50 and p999/);
    const samples = await tuneError(
      VALID.replace('{ p50: 100ms, p999: 1s }', '{ samples: nowhere.csv }'),
    );
    expect(samples.message).toMatch(/handler\.samples: found .*nowhere\.csv/);
  });

  it('says when the file is not there', async () => {
    const error = await loadTuneFile(join(dir, 'absent.yaml')).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /found no such file; expected a readable YAML tune file/,
    );
  });
});
