import { copyFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryFileError } from '../../src/history/history-errors.js';
import { historyEnd, readHistory, writeHistory } from '../../src/history/jsonl.js';
import type { History, HistoryEvent, HistoryHeader } from '../../src/history/types.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'leaseproof-jsonl-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const T0 = 1_790_000_000_000.125;

const header: HistoryHeader = {
  type: 'header',
  version: 1,
  scenario: 'jsonl',
  seed: 42,
  queue: 'reference',
  versions: { leaseproof: '0.1.0', postgres: '18.0', toxiproxy: '2.5.0', node: 'v20.19.0' },
  lease: { durationMs: 2_000, heartbeatMs: 500, extendByMs: 2_000, pollMs: 100 },
  workers: ['w1', 'w2'],
  clockOffsetMs: -0.0123,
  clockUncertaintyMs: 0.071,
  startedAt: T0 - 10,
};

/** One event of every type, with fractional times and optional fields both set and absent. */
const events: HistoryEvent[] = [
  { type: 'job', t: T0, job: '1', units: 2, maxUnitMs: 37.5 },
  {
    type: 'audit',
    t: T0,
    stmtT: T0 - 0.2,
    txnT: T0 - 0.25,
    xid: '731',
    app: 'leaseproof-controller',
    op: 'insert',
    job: '1',
    old: null,
    new: { holder: null, deadline: null, state: 'pending' },
  },
  {
    type: 'nemesis',
    t: T0 + 1.5,
    phase: 'start',
    fault: 'partition',
    target: 'w1',
    id: 'p1',
    detail: { mode: 'blackhole', direction: 'downstream', forMs: 4_000 },
  },
  {
    type: 'audit',
    t: T0 + 3.001,
    stmtT: T0 + 3,
    txnT: T0 + 3,
    xid: '732',
    app: 'w1',
    op: 'update',
    job: '1',
    old: { holder: null, deadline: null, state: 'pending' },
    new: { holder: 'a7f0c9e2-1', deadline: T0 + 2_003, state: 'held' },
  },
  {
    type: 'worker',
    t: T0 + 3.6,
    worker: 'w1',
    kind: 'claim',
    phase: 'complete',
    outcome: 'ok',
    job: '1',
    token: 'a7f0c9e2-1',
  },
  { type: 'worker', t: T0 + 4, worker: 'w1', kind: 'unit', job: '1', token: 'a7f0c9e2-1', unit: 0 },
  { type: 'effect', t: T0 + 40, worker: 'w1', job: '1', token: 'a7f0c9e2-1', unit: 0 },
  {
    type: 'worker',
    t: T0 + 41,
    worker: 'w2',
    kind: 'error',
    detail: 'naïve “quotes” \n and a newline',
  },
  { type: 'nemesis', t: T0 + 50, phase: 'end', fault: 'partition', target: 'w1', id: 'p1' },
  {
    type: 'audit',
    t: T0 + 60,
    stmtT: T0 + 60,
    txnT: T0 + 60,
    xid: '733',
    app: 'w1',
    op: 'delete',
    job: '1',
    old: { holder: 'a7f0c9e2-1', deadline: T0 + 2_003, state: 'held' },
    new: null,
  },
  { type: 'end', t: T0 + 70, drained: true },
];

const history: History = { header, events };
let n = 0;
const file = () => join(dir, `h${(n += 1)}.jsonl`);

/** Writes raw lines (no validation) and returns the file. */
async function raw(lines: unknown[], tail = '\n'): Promise<string> {
  const f = file();
  await writeFile(
    f,
    lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n') + tail,
  );
  return f;
}

/** The HistoryFileError reading `f` throws. */
async function readError(f: string): Promise<HistoryFileError> {
  const error: unknown = await readHistory(f).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HistoryFileError);
  return error as HistoryFileError;
}

describe('writeHistory and readHistory', () => {
  it('round-trip a history exactly: one header line, one line per event', async () => {
    const f = file();
    await writeHistory(f, history);
    const text = await readFile(f, 'utf8');
    expect(text.split('\n')).toHaveLength(1 + events.length + 1);
    expect(JSON.parse(text.split('\n')[0]!)).toEqual(header);
    const read = await readHistory(f);
    expect(read).toEqual(history);
    expect(historyEnd(read)).toEqual({ type: 'end', t: T0 + 70, drained: true });
  });

  it('stream a history of 200,000 events through', async () => {
    const many: HistoryEvent[] = Array.from({ length: 200_000 }, (_, i) => ({
      type: 'worker',
      t: T0 + i / 7,
      worker: `w${i % 8}`,
      kind: 'unit',
      job: String(i >> 3),
      token: 't',
      unit: i % 5,
    }));
    const f = file();
    await writeHistory(f, { header, events: many });
    const read = await readHistory(f);
    expect(read.events).toHaveLength(many.length);
    expect(read.events[123_456]).toEqual(many[123_456]);
    expect(historyEnd(read)).toBeUndefined();
  });
});

describe('a gzip history (as reports write it)', () => {
  it('is written compressed when the name ends in .gz and reads back exactly', async () => {
    const f = join(dir, 'g1.history.jsonl.gz');
    await writeHistory(f, history);
    const bytes = await readFile(f);
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
    expect(gunzipSync(bytes).toString('utf8').split('\n')[0]).toBe(JSON.stringify(header));
    expect(await readHistory(f)).toEqual(history);
  });

  it('is recognised by its bytes, not its name', async () => {
    const gz = join(dir, 'g2.history.jsonl.gz');
    await writeHistory(gz, history);
    const renamed = join(dir, 'g2-renamed.jsonl');
    await copyFile(gz, renamed);
    expect(await readHistory(renamed)).toEqual(history);
  });

  it('shrinks a long history several times over', async () => {
    const many: HistoryEvent[] = Array.from({ length: 20_000 }, (_, i) => ({
      type: 'worker',
      t: T0 + i / 7,
      worker: `w${i % 8}`,
      kind: 'unit',
      job: String(i >> 3),
      token: 't',
      unit: i % 5,
    }));
    const plain = file();
    const gz = join(dir, 'g3.history.jsonl.gz');
    await writeHistory(plain, { header, events: many });
    await writeHistory(gz, { header, events: many });
    expect((await stat(gz)).size * 4).toBeLessThan((await stat(plain)).size);
  });

  it('cut short mid-stream reads what was flushed, without the half line', async () => {
    const gz = join(dir, 'g4.history.jsonl.gz');
    const many: HistoryEvent[] = Array.from({ length: 5_000 }, (_, i) => ({
      type: 'worker',
      t: T0 + i,
      worker: 'w1',
      kind: 'unit',
      job: String(i),
      token: 't',
      unit: 0,
    }));
    await writeHistory(gz, { header, events: many });
    const bytes = await readFile(gz);
    const cut = join(dir, 'g4-cut.history.jsonl.gz');
    await writeFile(cut, bytes.subarray(0, Math.floor(bytes.length / 2)));
    const read = await readHistory(cut);
    expect(read.header).toEqual(header);
    expect(read.events.length).toBeGreaterThan(0);
    expect(read.events.length).toBeLessThan(many.length);
    expect(read.events).toEqual(many.slice(0, read.events.length));
    expect(historyEnd(read)).toBeUndefined();
  });
});

describe('a history cut short', () => {
  it('without its end event reads, and says so', async () => {
    const f = await raw([header, ...events.slice(0, 5)]);
    const read = await readHistory(f);
    expect(read.events).toEqual(events.slice(0, 5));
    expect(historyEnd(read)).toBeUndefined();
  });

  it('in the middle of its last line reads, without that half line', async () => {
    const half = JSON.stringify(events[5]).slice(0, 30);
    const f = await raw([header, ...events.slice(0, 5), half], '');
    const read = await readHistory(f);
    expect(read.events).toEqual(events.slice(0, 5));
    expect(historyEnd(read)).toBeUndefined();
  });

  it('inside its header does not read', async () => {
    const f = await raw([JSON.stringify(header).slice(0, 40)], '');
    expect((await readError(f)).message).toMatch(/:1: not JSON/);
  });
});

describe('a malformed history file is refused with file:line and what was wrong', () => {
  const cases: [string, () => Promise<string>, number, RegExp][] = [
    ['an empty file', () => raw([], ''), 1, /the file is empty: expected a history header/],
    [
      'a line that is not JSON',
      () => raw([header, events[0], '{"type":"job", t: 1}', events[1]]),
      3,
      /not JSON \(/,
    ],
    [
      'a complete last line that is not JSON',
      () => raw([header, events[0], '{"type":']),
      3,
      /not JSON/,
    ],
    ['no header', () => raw([events[0], events[1]]), 1, /the first line is not a history header/],
    [
      'another major version',
      () => raw([{ ...header, version: 2 }, events[0]]),
      1,
      /history version 2 cannot be read: this leaseproof reads version 1/,
    ],
    [
      'a header missing a field',
      () => raw([{ ...header, lease: { durationMs: 1 } }]),
      1,
      /header field "lease" is .*expected a lease object whose field "heartbeatMs" is missing/,
    ],
    [
      'an event of unknown type',
      () => raw([header, events[0], events[1], { type: 'gossip', t: T0 + 2 }]),
      4,
      /unknown event type "gossip" \(expected one of audit, effect, worker, nemesis, job, end\)/,
    ],
    [
      'an event missing a field',
      () => raw([header, { ...events[1], xid: undefined }]),
      2,
      /audit event field "xid" is missing \(expected a string\)/,
    ],
    [
      'an event with a field of the wrong type',
      () => raw([header, { type: 'effect', t: T0, worker: 'w1', job: '1', token: 'x', unit: '0' }]),
      2,
      /effect event field "unit" is "0", expected a number/,
    ],
    [
      'an audit image in a state that is not a lease state',
      () => raw([header, { ...events[3], new: { holder: 'x', deadline: T0, state: 'claimed' } }]),
      2,
      /audit event field "new" is .*field "state" is "claimed", expected one of pending, held/,
    ],
    [
      'events out of order',
      () => raw([header, events[3], events[0]]),
      3,
      /job event at t=.* is earlier than the event before it .*: events must be ordered by t/,
    ],
    [
      'an event after the end',
      () => raw([header, events[0], { type: 'end', t: T0 + 1, drained: false }, events[2]]),
      4,
      /nemesis event after the end event/,
    ],
  ];

  for (const [what, make, line, message] of cases) {
    it(what, async () => {
      const f = await make();
      const error = await readError(f);
      expect(error.message.startsWith(`${f}:${line}: `)).toBe(true);
      expect(error.message).toMatch(message);
      expect(error).toMatchObject({ file: f, line, code: 'LEASEPROOF_BAD_HISTORY' });
    });
  }

  it('a file that does not exist', async () => {
    const f = join(dir, 'missing.jsonl');
    const error = await readError(f);
    expect(error.message).toMatch(new RegExp(`^${f}: cannot be read: ENOENT`));
  });
});
