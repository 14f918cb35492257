import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { StartedWorker } from '../../src/pool/worker-process.js';
import type { WorkerLink, WorkerTransport } from '../../src/pool/worker-transport.js';
import { isAlive } from '../../src/env/process-registry.js';
import type { WorkerConfig } from '../../src/worker/types.js';

/**
 * A second transport, besides leaseproof's own Node worker: a process that speaks the wire
 * format as a worker in another language would, here a few lines of JavaScript that say
 * whatever the test tells them to once they got their configuration.
 */
function scriptedTransport(reply: (config: unknown) => unknown[]): WorkerTransport {
  return {
    name: 'scripted',
    start(): WorkerLink {
      const script = `process.once('message', (m) => {
        for (const r of (${reply.toString()})(m)) process.send(r);
      });
      setInterval(() => {}, 1000);`;
      const child = spawn(process.execPath, ['-e', script], {
        stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
        serialization: 'json',
        detached: true,
      });
      return {
        pid: child.pid!,
        get connected() {
          return child.connected;
        },
        send: (message) => child.send(message),
        onMessage: (listener) => child.on('message', listener),
        onStderrLine: (listener) =>
          child.stderr?.on('data', (c: Buffer) =>
            c.toString().split('\n').filter(Boolean).forEach(listener),
          ),
        onExit: (listener) => child.once('exit', listener),
      };
    },
  };
}

const config: WorkerConfig = {
  workerId: 'w1',
  queue: 'reference',
  databaseUrl: 'postgres://unused',
  effectsUrl: 'postgres://unused',
  lease: { durationMs: 1000, heartbeatMs: 200, extendByMs: 1000, pollMs: 50 },
};

describe('the worker transport seam', () => {
  it('starts a worker through another transport: config sent first with the version, ready read back', async () => {
    const worker = await StartedWorker.start({
      runId: 'transport-test',
      config,
      transport: scriptedTransport((m) => [
        {
          type: 'events',
          events: [
            {
              kind: 'ready',
              at: 1,
              pid: process.pid,
              wireFormat: (m as { wireFormat: number }).wireFormat,
              config: m,
            },
          ],
        },
      ]),
    });
    try {
      const ready = worker.events[0]?.event as unknown as { wireFormat: number; config: unknown };
      expect(ready.wireFormat).toBe(1);
      expect(ready.config).toEqual({ type: 'config', wireFormat: 1, config });
      expect(worker.running).toBe(true);
    } finally {
      await worker.stop(1_000);
    }
    expect(isAlive(worker.pid)).toBe(false);
  });

  it('refuses a worker that speaks another version of the wire format, and stops it', async () => {
    const start = StartedWorker.start({
      runId: 'transport-test',
      config,
      transport: scriptedTransport(() => [
        { type: 'events', events: [{ kind: 'ready', at: 1, pid: 1, wireFormat: 2 }] },
      ]),
    });
    await expect(start).rejects.toThrow(/worker w1 did not start/);
    await expect(start).rejects.toMatchObject({
      cause: { message: /speaks wire format 2; leaseproof speaks 1/ },
    });
  });

  it('kills a worker that breaks the wire format, and says what was wrong', async () => {
    const start = StartedWorker.start({
      runId: 'transport-test',
      config,
      transport: scriptedTransport(() => [
        { type: 'events', events: [{ kind: 'claim', at: 1, outcome: 'granted' }] },
      ]),
    });
    await expect(start).rejects.toThrow(
      /broke the wire format: events\[0\]\.outcome \(claim\): expected one of ok, fail, info, got "granted"/,
    );
  });
});
