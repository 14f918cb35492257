import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { runShippedScenario } from '../support/scenario-run.js';
import {
  havePython,
  haveLibfaketime,
  libfaketimeSkipReason,
  pythonSkipReason,
} from '../support/python.js';

// Queues written in Python, through the primitives protocol: leaseproof's real workers, faults
// and checkers, the queue's own Python code on its own connections. The correct tiny queue is
// valid; each one-line-wrong version is caught by the scenario that exists to catch it.
const REFERENCE = './examples/tiny-queue-python.ts';
let env: StartedEnvironment;
beforeAll(async () => {
  if (havePython) env = await new EmbeddedEnvironmentProvider().start();
}, 300_000);
afterAll(async () => {
  await env?.stop();
});

const runScenario = (queue: string, name: string) => runShippedScenario(env, queue, name);

describe.skipIf(!havePython)(`queues in Python${pythonSkipReason}`, () => {
  it('the tiny queue in Python is valid through a pause past its lease, every write its own', async () => {
    const run = await runScenario(REFERENCE, 'pause-past-lease');
    expect(run.drained).toBe(true);
    expect(run.result.valid).toBe('valid');
    // The grants came from the Python program's connections, named by worker id.
    const granters = new Set(
      run.audit.filter((e) => e.new?.state === 'held' && e.old?.state !== 'held').map((e) => e.app),
    );
    expect([...granters].every((app) => /^w\d+$/.test(app))).toBe(true);
    expect(granters.size).toBeGreaterThan(0);
  });

  it('an ack by job id alone (Python) is caught: I1 on pause-past-lease', async () => {
    const run = await runScenario(
      './test/fixtures/python/tiny-unconditional-ack.ts',
      'pause-past-lease',
    );
    expect(run.byName['no-stale-ack']?.valid).toBe('invalid');
    expect(run.result.valid).toBe('invalid');
  });

  it.skipIf(!haveLibfaketime)(
    `a lease on the worker's time.time() (Python) is caught once libfaketime skews it${libfaketimeSkipReason}`,
    async () => {
      const run = await runScenario(
        './test/fixtures/python/tiny-worker-clock-lease.ts',
        'skewed-worker-clocks',
      );
      expect(run.result.valid).toBe('invalid');
      expect(run.history.header.queueTerms?.unskewedClock).toBeUndefined();
    },
  );

  it('a queue whose clock the run cannot skew is never valid under a skew: unknown, saying why', async () => {
    const run = await runScenario(
      './test/fixtures/python/tiny-unskewed.ts',
      'skewed-worker-clocks',
    );
    expect(run.result.valid).toBe('unknown');
    expect(run.history.header.queueTerms?.unskewedClock).toMatch(/clockSkew: false/);
    for (const r of run.result.results) expect(r.valid).not.toBe('valid');
  });
});
