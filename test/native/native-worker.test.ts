// The Node client of the JSON-lines wire format, as a process: supervision of a library loop
// that gives up, a library rejection nobody awaited, SIGTERM, and the controller going away.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { WIRE_FORMAT_VERSION } from '../../src/worker/wire-format.js';
import { ROOT } from '../support/run-node.js';

const TSX = pathToFileURL(createRequire(`${ROOT}package.json`).resolve('tsx')).href;

interface Event {
  kind: string;
  at: number;
  [key: string]: unknown;
}

function start(): {
  child: ChildProcess;
  events: Event[];
  next: (kind: string) => Promise<Event>;
  stderr: () => string;
} {
  const child = spawn(process.execPath, ['--import', TSX, 'test/fixtures/native/flaky-target.ts'], {
    cwd: ROOT,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const events: Event[] = [];
  const waiting: { kind: string; resolve: (e: Event) => void }[] = [];
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as { type: string; events: Event[] };
    expect(message.type).toBe('events');
    for (const e of message.events) {
      events.push(e);
      for (const w of waiting.filter((x) => x.kind === e.kind)) {
        waiting.splice(waiting.indexOf(w), 1);
        w.resolve(e);
      }
    }
  });
  const next = (kind: string): Promise<Event> => {
    const seen = events.find((e) => e.kind === kind);
    return seen !== undefined
      ? Promise.resolve(seen)
      : new Promise((resolve) => waiting.push({ kind, resolve }));
  };
  const config = {
    type: 'config',
    wireFormat: WIRE_FORMAT_VERSION,
    config: {
      workerId: 'w1',
      queue: 'fixture',
      databaseUrl: 'postgres://unused',
      effectsUrl: 'postgres://unused',
      lease: { durationMs: 800, heartbeatMs: 200, extendByMs: 800, pollMs: 50 },
    },
  };
  child.stdin.write(`${JSON.stringify(config)}\n`);
  return { child, events, next, stderr: () => err };
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));

describe("the Node client's native runner", () => {
  it('restarts a loop that gave up, reports an unawaited rejection, and exits on SIGTERM', async () => {
    const { child, events, next, stderr } = start();
    const ready = await next('ready');
    expect(ready).toMatchObject({
      pid: child.pid,
      wireFormat: WIRE_FORMAT_VERSION,
      startsOnGo: true,
    });
    // Event times are CLOCK_MONOTONIC ms, as this process's hrtime reads it.
    expect(Math.abs(ready.at - Number(process.hrtime.bigint()) / 1e6)).toBeLessThan(10_000);
    child.stdin!.write('{"type":"go"}\n');
    const lost = await next('claim');
    expect(lost).toMatchObject({
      outcome: 'info',
      error: expect.stringMatching(/connection lost/) as string,
    });
    const error = await next('error');
    expect(error.message).toMatch(/unhandled rejection in the library: Error: complete failed/);
    expect(stderr()).toMatch(/prepared 2/);
    const code = exited(child);
    child.kill('SIGTERM');
    expect(await code).toBe(0);
    expect(events.at(-1)).toMatchObject({ kind: 'exit', reason: 'SIGTERM' });
  }, 60_000);

  it('exits when the controller goes away (its stdin ends)', async () => {
    const { child, next } = start();
    await next('ready');
    const code = exited(child);
    child.stdin!.end();
    expect(await code).toBe(0);
    expect(await next('exit')).toMatchObject({ reason: 'controller disconnected' });
  }, 60_000);
});
