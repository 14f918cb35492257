import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LineProgram } from '../../../src/libraries/program/line-program.js';
import { ProgramClock, findLibfaketime } from '../../../src/libraries/program/program-clock.js';
import { programQueue } from '../../../src/libraries/program/program-queue.js';
import { PYTHON_CLIENT_DIR, ensurePythonEnvironment } from '../../../src/env/python-install.js';
import {
  havePython,
  haveLibfaketime,
  libfaketimeSkipReason,
  pythonSkipReason,
} from '../../support/python.js';

// The Python client through real Python processes: its own unit tests, the project's install
// of its environment, and a skewed clock reaching a program's time.time() while its monotonic
// clock stays real.
let python = '';
beforeAll(async () => {
  if (havePython) python = await ensurePythonEnvironment();
}, 300_000);

describe.skipIf(!havePython)(`the Python client${pythonSkipReason}`, () => {
  it("passes its own tests (clients/python/tests) in leaseproof's environment", () => {
    const run = spawnSync(python, ['-m', 'unittest', 'discover', '-s', 'tests'], {
      cwd: PYTHON_CLIENT_DIR,
      encoding: 'utf8',
    });
    expect(run.stderr).toMatch(/Ran \d+ tests/);
    expect(run.status, run.stderr).toBe(0);
  });

  it('describes the tiny queue in Python: its audit, its optional operations', async () => {
    const adapter = await programQueue({
      command: [python, 'examples/tiny_queue.py'],
      env: { PYTHONPATH: PYTHON_CLIENT_DIR },
    })();
    expect(adapter.name).toBe('tiny-python');
    expect(adapter.audit.table).toBe('tiny_jobs');
    expect(typeof adapter.extend).toBe('function');
    expect(adapter.checkpoint === undefined).toBe(true);
  });

  it.skipIf(!haveLibfaketime)(
    `a skew set from outside moves the program's time.time(), live, and not its monotonic clock${libfaketimeSkipReason}`,
    async () => {
      const clock = new ProgramClock(findLibfaketime());
      const program = new LineProgram({
        command: [python, 'examples/tiny_queue.py'],
        env: { PYTHONPATH: PYTHON_CLIENT_DIR, ...clock.env() },
        label: 'tiny_queue.py',
      });
      const read = async () => {
        const { ok } = await program.request({ op: 'clock' }, 10_000);
        const mono = Number(process.hrtime.bigint()) / 1e6;
        const { wallMs, monotonicMs } = ok as { wallMs: number; monotonicMs: number };
        return { skew: wallMs - Date.now(), monoGap: mono - monotonicMs };
      };
      try {
        clock.set(90 * 60_000);
        const ahead = await read();
        clock.set(-30 * 60_000);
        const behind = await read();
        clock.set(0);
        const none = await read();
        // Within a second: the read and Date.now() are a pipe's round trip apart.
        expect(Math.abs(ahead.skew - 90 * 60_000)).toBeLessThan(1_000);
        expect(Math.abs(behind.skew + 30 * 60_000)).toBeLessThan(1_000);
        expect(Math.abs(none.skew)).toBeLessThan(1_000);
        // One CLOCK_MONOTONIC on a host: the program's reads sit just before this process's.
        for (const r of [ahead, behind, none]) {
          expect(r.monoGap).toBeGreaterThanOrEqual(0);
          expect(r.monoGap).toBeLessThan(1_000);
        }
      } finally {
        program.stop();
        clock.remove();
      }
    },
  );
});

describe('programQueue: a program that describes itself wrongly', () => {
  const program = async (answer: unknown) => {
    const file = join(tmpdir(), `leaseproof-describe-${process.pid}-${Math.random()}.cjs`);
    await writeFile(
      file,
      `require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => {
         process.stdout.write(JSON.stringify({ id: JSON.parse(l).id, ok: ${JSON.stringify(answer)} }) + '\\n');
       });`,
    );
    return programQueue({ command: [process.execPath, file] })();
  };

  it('another protocol version is refused, naming both', async () => {
    await expect(program({ protocol: 2, name: 'q', audit: {}, ops: [] })).rejects.toThrow(
      /speaks primitives protocol 2; leaseproof speaks 1/,
    );
  });

  it('every wrong field is listed', async () => {
    await expect(program({ protocol: 1, name: '', ops: 'extend' })).rejects.toThrow(
      /"name" must be a non-empty string\n {2}- "audit" must be an object\n {2}- "ops" must be an array/,
    );
  });

  it('an empty command is misuse, said at once', () => {
    expect(() => programQueue({ command: [] })).toThrow(/`command` must be a non-empty array/);
  });

  it('bounds a call like a statement on a warm connection, and allows a connect on a cold one', async () => {
    // Every claim takes 500 ms: within a cold call's bound (2 × 300 + 1000 ms), past a warm one's.
    const file = join(tmpdir(), `leaseproof-slow-${process.pid}.cjs`);
    await writeFile(
      file,
      `require('node:readline').createInterface({ input: process.stdin }).on('line', (l) => {
         const r = JSON.parse(l);
         const ok = r.op === 'describe' ? { protocol: 1, name: 'slow', audit: {}, ops: [] } : null;
         setTimeout(() => process.stdout.write(JSON.stringify({ id: r.id, ok }) + '\\n'), r.op === 'describe' ? 0 : 500);
       });`,
    );
    const adapter = await programQueue({ command: [process.execPath, file] })();
    const ctx = {
      workerId: 'w1',
      lease: { durationMs: 300, heartbeatMs: 100, extendByMs: 300, pollMs: 20 },
      workerNow: () => Date.now(),
      databaseUrl: 'postgres://unused',
    };
    const db = { query: () => Promise.reject(new Error('unused')) };
    await expect(adapter.claim(db, ctx)).resolves.toBeUndefined();
    await expect(adapter.claim(db, ctx)).rejects.toThrow(/no answer to "claim" within 300 ms/);
    await expect(adapter.claim(db, ctx)).resolves.toBeUndefined();
  });
});
