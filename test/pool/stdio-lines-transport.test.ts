import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePythonEnvironment, PYTHON_CLIENT_DIR } from '../../src/env/python-install.js';
import { isAlive } from '../../src/env/process-registry.js';
import { stdioLinesTransport } from '../../src/pool/stdio-lines-transport.js';
import { StartedWorker } from '../../src/pool/worker-process.js';
import type { NativeProgram } from '../../src/queue/types.js';
import { monotonicNow, type WorkerConfig } from '../../src/worker/types.js';
import {
  haveLibfaketime,
  havePython,
  libfaketimeSkipReason,
  pythonSkipReason,
} from '../support/python.js';

const config: WorkerConfig = {
  workerId: 'w1',
  queue: 'native-echo',
  databaseUrl: 'postgres://unused',
  effectsUrl: 'postgres://unused',
  lease: { durationMs: 1000, heartbeatMs: 200, extendByMs: 1000, pollMs: 50 },
};

let python = '';

function program(env: Record<string, string> = {}): NativeProgram {
  return {
    command: [python, resolve('test/fixtures/python/native_echo.py')],
    env: { PYTHONPATH: PYTHON_CLIENT_DIR, PYTHONUNBUFFERED: '1', ...env },
  };
}

const started: StartedWorker[] = [];

async function start(
  env: Record<string, string> = {},
  extra: Partial<WorkerConfig> = {},
): Promise<StartedWorker> {
  const worker = await StartedWorker.start({
    runId: 'stdio-test',
    config: { ...config, ...extra },
    transport: stdioLinesTransport(program(env)),
  });
  started.push(worker);
  return worker;
}

describe.skipIf(!havePython)(
  `the stdio-lines transport (native worker programs)${pythonSkipReason}`,
  () => {
    beforeAll(async () => {
      python = await ensurePythonEnvironment();
    }, 300_000);
    afterAll(async () => {
      await Promise.all(started.map((w) => w.stop()));
    });

    it('starts a program, sends config and go, and moves its CLOCK_MONOTONIC times onto the controller clock', async () => {
      const job = JSON.stringify({ units: [{ ms: 30 }, { ms: 30 }], failAttempts: 1 });
      const before = monotonicNow();
      const worker = await start({ LEASEPROOF_TEST_JOB: job });
      const ready = worker.events.find((e) => e.event.kind === 'ready')!;
      // The program stamps CLOCK_MONOTONIC; unshifted, `at` would be hours or days off.
      expect(ready.event.at).toBeGreaterThan(before - 50);
      expect(ready.event.at).toBeLessThan(monotonicNow() + 50);
      worker.release();
      const failed = await worker.waitFor((e) => e.kind === 'error', 10_000);
      // Starvation reports may come between, on a busy machine: they are not this test's business.
      const kinds = worker.events.map((e) => e.event.kind).filter((k) => k !== 'starved');
      expect(kinds).toEqual(['ready', 'claim', 'unit', 'unit', 'error']);
      // failAttempts 1: the handler plan fails the first attempt after its last unit.
      expect(failed.event.kind === 'error' && failed.event.message).toMatch(
        /planned failure of attempt 1/,
      );
      const units = worker.events.filter((e) => e.event.kind === 'unit').map((e) => e.event.at);
      expect(units[1]! - units[0]!).toBeGreaterThanOrEqual(29);
      await worker.stop();
      expect(worker.exitedByItself).toBeUndefined();
      expect(isAlive(worker.pid)).toBe(false);
    }, 60_000);

    it('restarts a library loop that ends with an error, as a supervisor would, and says so', async () => {
      const worker = await start({ LEASEPROOF_TEST_MODE: 'crash-once' });
      worker.release();
      await worker.waitFor((e) => e.kind === 'connect', 10_000);
      const failed = worker.events.find((e) => e.event.kind === 'claim')?.event;
      expect(failed?.kind === 'claim' && failed.outcome === 'info' && failed.error).toMatch(
        /the library's loop ended: RuntimeError: the library's loop failed/,
      );
      expect(worker.running).toBe(true);
      await worker.stop();
      expect(worker.exitedByItself).toBeUndefined();
    }, 60_000);

    it('a program whose loop ends by itself (unsupervised) is a harness error quoting its stderr', async () => {
      const worker = await start({
        LEASEPROOF_TEST_MODE: 'crash',
        LEASEPROOF_NATIVE_SUPERVISE: '0',
      });
      worker.release();
      await new Promise<void>((done) => worker.once('exit', () => done()));
      expect(worker.exitedByItself?.message).toMatch(
        /exited by itself[\s\S]*the library's loop failed/,
      );
    }, 60_000);

    it("a crash that dumps more than the stderr tail keeps its first line, the crash's why", async () => {
      const worker = await start({ LEASEPROOF_TEST_MODE: 'fatal' });
      worker.release();
      await new Promise<void>((done) => worker.once('exit', () => done()));
      expect(worker.exitedByItself?.message).toMatch(
        /exited by itself \(code 2, signal null\) before the run ended: fatal error: concurrent map writes …:\n/,
      );
    }, 60_000);

    it('a line on stdout that is not the wire format kills the program and names the line', async () => {
      const worker = await start({ LEASEPROOF_TEST_MODE: 'noise' });
      worker.release();
      await new Promise<void>((done) => worker.once('exit', () => done()));
      expect(worker.brokenWireFormat?.message).toMatch(/hello from a library that prints/);
      expect(worker.exitedByItself).toBeUndefined();
    }, 60_000);

    it.skipIf(!haveLibfaketime)(
      `skews the program's wall clock through libfaketime, live, and leaves its monotonic clock alone${libfaketimeSkipReason}`,
      async () => {
        const hour = 3_600_000;
        const worker = await start({}, { clock: { offsetMs: 2 * hour } });
        const clockOf = async (): Promise<{ skew: number; at: number }> => {
          const seen = worker.events.length;
          const received = await worker.waitFor(
            (e) => e.kind === 'clock' && worker.events.findIndex((r) => r.event === e) >= seen,
            10_000,
          );
          const e = received.event;
          if (e.kind !== 'clock') throw new Error('not a clock event');
          return { skew: e.workerNow - Date.now(), at: e.at };
        };
        worker.setClock({ offsetMs: 2 * hour });
        const first = await clockOf();
        // time.time() in the program reads two hours ahead…
        expect(Math.abs(first.skew - 2 * hour)).toBeLessThan(1_000);
        // …while its event times (CLOCK_MONOTONIC) stay on the real clock.
        expect(Math.abs(first.at - monotonicNow())).toBeLessThan(1_000);
        worker.setClock({ offsetMs: -30 * 60_000 });
        const second = await clockOf();
        expect(Math.abs(second.skew + 30 * 60_000)).toBeLessThan(1_000);
      },
      60_000,
    );
  },
);
