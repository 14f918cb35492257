import { describe, expect, it } from 'vitest';
import {
  parseWorkerMessage,
  WireFormatError,
  WORKER_EVENT_KINDS,
} from '../../src/worker/wire-format.js';

const batch = (...events: unknown[]): unknown => ({ type: 'events', events });

describe('the worker wire format', () => {
  it('accepts a batch of well-formed events, unchanged, including fields it does not know', () => {
    const message = batch(
      { kind: 'ready', at: 1, pid: 42, wireFormat: 1 },
      { kind: 'claim', at: 2, outcome: 'ok', jobId: '1', token: 't', attempt: 1, sentAt: 1.5 },
      { kind: 'ack', at: 3, phase: 'complete', outcome: 'ok', jobId: '1', token: 't' },
      { kind: 'unit', at: 4, jobId: '1', token: 't', unit: 0, effect: true, extra: 'kept' },
    );
    expect(parseWorkerMessage(JSON.parse(JSON.stringify(message)))).toEqual(message);
  });

  // Each rule, and the wrong worker it exists to catch.
  it.each([
    ['not a batch (a bare event)', { kind: 'ready', at: 1, pid: 1 }, /expected \{"type":"events"/],
    ['events not an array', { type: 'events', events: {} }, /expected \{"type":"events"/],
    ['an event that is not an object', batch(7), /events\[0\]: expected an object, got 7/],
    [
      'an unknown kind',
      batch({ kind: 'claimed', at: 1 }),
      /events\[0\]\.kind: expected one of .*got "claimed"/,
    ],
    [
      'a time as a string',
      batch({ kind: 'connect', at: '12' }),
      /events\[0\]\.at \(connect\): expected a number/,
    ],
    [
      'ready without the version',
      batch({ kind: 'ready', at: 1, pid: 1 }),
      /\.wireFormat \(ready\): expected a number, got undefined/,
    ],
    [
      'an outcome outside ok/fail/info',
      batch({ kind: 'claim', at: 1, outcome: 'timeout' }),
      /\.outcome \(claim\): expected one of ok, fail, info, got "timeout"/,
    ],
    [
      'an ack without its token',
      batch({ kind: 'ack', at: 1, phase: 'invoke', jobId: '1' }),
      /events\[0\]\.token \(ack\): expected a string/,
    ],
    [
      'a unit whose effect flag is a string',
      batch({ kind: 'unit', at: 1, jobId: '1', token: 't', unit: 0, effect: 'yes' }),
      /\.effect \(unit\): expected a boolean/,
    ],
  ])('rejects %s, saying where and what was expected', (_name, message, expected) => {
    expect(() => parseWorkerMessage(message)).toThrow(WireFormatError);
    expect(() => parseWorkerMessage(message)).toThrow(expected);
  });

  it('names every event kind the types have, and the document lists them all', async () => {
    const { readFile } = await import('node:fs/promises');
    const doc = await readFile(
      new URL('../../docs/worker-wire-format.md', import.meta.url),
      'utf8',
    );
    for (const kind of WORKER_EVENT_KINDS) expect(doc).toContain(`\`${kind}\``);
  });
});
