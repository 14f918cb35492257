import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkWorkerProtocol } from '../../src/conformance/check-worker-protocol.js';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { goSkipReason, haveGo } from '../support/go.js';
import {
  haveLibfaketime,
  havePython,
  libfaketimeSkipReason,
  pythonSkipReason,
} from '../support/python.js';
import { haveJava, javaSkipReason } from '../support/java.js';

let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
}, 300_000);
afterAll(async () => {
  await env?.stop();
});

const outcomes = (report: Awaited<ReturnType<typeof checkWorkerProtocol>>) =>
  Object.fromEntries(report.checks.map((c) => [c.name, c.outcome]));

describe('the worker protocol conformance check', () => {
  it("passes for leaseproof's own Node worker behind the transport seam", async () => {
    const report = await checkWorkerProtocol(env, 'reference');
    expect(report.checks.filter((c) => c.outcome !== 'pass')).toEqual([]);
    expect(report.checks.length).toBe(10);
    expect(report.passed).toBe(true);
  });

  it.skipIf(!havePython)(
    `passes for the Python client's native runner on a real library (pgqueuer)${pythonSkipReason}`,
    async () => {
      const report = await checkWorkerProtocol(env, 'pgqueuer');
      expect(report.checks.filter((c) => c.outcome === 'fail')).toEqual([]);
      expect(report.passed).toBe(true);
    },
  );

  it.skipIf(!haveGo)(
    `passes for the Go client's native runner on River, its clock skewed by the build's overlay${goSkipReason}`,
    async () => {
      const report = await checkWorkerProtocol(env, 'river');
      expect(report.checks.filter((c) => c.outcome !== 'pass')).toEqual([]);
      expect(outcomes(report)['a clock skew reaches the clock its code reads']).toBe('pass');
      expect(report.passed).toBe(true);
    },
    600_000,
  );

  it.skipIf(!haveJava)(
    `passes for the Java client's native runner on db-scheduler, its JVM's clock skewed by libfaketime${javaSkipReason}`,
    async () => {
      const report = await checkWorkerProtocol(env, 'db-scheduler');
      expect(report.checks.filter((c) => c.outcome !== 'pass')).toEqual([]);
      expect(outcomes(report)['a clock skew reaches the clock its code reads']).toBe('pass');
      expect(report.passed).toBe(true);
    },
    600_000,
  );

  it.skipIf(!haveLibfaketime).each(['pg-boss-native', 'graphile-worker-native'])(
    `passes for the Node client's native runner on %s's own loop, its clock skewed by libfaketime${libfaketimeSkipReason}`,
    async (queue) => {
      const report = await checkWorkerProtocol(env, queue);
      expect(report.checks.filter((c) => c.outcome !== 'pass')).toEqual([]);
      expect(outcomes(report)['a clock skew reaches the clock its code reads']).toBe('pass');
      expect(report.passed).toBe(true);
    },
    120_000,
  );

  it.skipIf(!havePython)(
    `fails a worker started behind a launcher, naming the pid it should have been${pythonSkipReason}`,
    async () => {
      const report = await checkWorkerProtocol(
        env,
        './test/fixtures/python/native-behind-launcher.ts',
      );
      expect(report.passed).toBe(false);
      const start = report.checks.find((c) => c.name.startsWith('it starts'));
      expect(start?.outcome).toBe('fail');
      expect(start?.detail).toMatch(/no launcher in between/);
      // Everything after depends on a worker the controller can reach: not run.
      expect(outcomes(report)['on SIGTERM it says exit and is gone']).toBe('skip');
    },
  );
});
