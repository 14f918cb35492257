import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPrimitives, type ConformanceReport } from '../../src/conformance/check-primitives.js';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { havePython, pythonSkipReason } from '../support/python.js';

// The conformance check passes a correct queue and fails a wrong one on the one check that
// names its bug — in TypeScript and through the primitives protocol alike.
let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
}, 300_000);
afterAll(async () => {
  await env?.stop();
});

const failed = (r: ConformanceReport) =>
  r.checks.filter((c) => c.outcome === 'fail').map((c) => c.name);

describe('checkPrimitives', () => {
  it('the reference conforms: every check passes, none skipped', async () => {
    const report = await checkPrimitives(env, 'reference');
    expect(failed(report)).toEqual([]);
    expect(report.checks.every((c) => c.outcome === 'pass')).toBe(true);
    expect(report.checks.length).toBe(11);
    expect(report.passed).toBe(true);
  });

  it('an ack by job id alone fails the stale-ack check, and only it', async () => {
    const report = await checkPrimitives(env, 'unconditional-ack');
    expect(failed(report)).toEqual(['ack by the expired holder is refused, and writes nothing']);
    expect(report.passed).toBe(false);
  });

  it('a queue that does not load fails the first check and runs no other', async () => {
    const report = await checkPrimitives(env, './no-such-queue.ts');
    expect(report.checks).toHaveLength(1);
    expect(report.checks[0]).toMatchObject({ outcome: 'fail' });
    expect(report.checks[0]?.detail).toMatch(/does not exist/);
  });

  it.skipIf(!havePython)(
    `the Python tiny queue conforms; its unfenced-ack version does not${pythonSkipReason}`,
    async () => {
      expect(failed(await checkPrimitives(env, './examples/tiny-queue-python.ts'))).toEqual([]);
      expect(
        failed(await checkPrimitives(env, './test/fixtures/python/tiny-unconditional-ack.ts')),
      ).toEqual(['ack by the expired holder is refused, and writes nothing']);
    },
  );
  it.skipIf(!havePython)(
    `real Python libraries' statements: procrastinate's finish and pgqueuer's heartbeat and delete are unfenced; a native-only queue says it has no primitives${pythonSkipReason}`,
    async () => {
      const staleAck = 'ack by the expired holder is refused, and writes nothing';
      const newAck = "the new holder's ack commits";
      expect(failed(await checkPrimitives(env, 'procrastinate-statements'))).toEqual([
        staleAck,
        newAck,
      ]);
      expect(failed(await checkPrimitives(env, 'pgqueuer-statements'))).toEqual([
        'extend by the expired holder is refused, and writes nothing',
        staleAck,
        newAck,
      ]);
      const native = await checkPrimitives(env, 'pgqueuer');
      expect(native.checks.map((c) => c.outcome)).toEqual(['pass', 'skip']);
      expect(native.checks[1]?.detail).toMatch(/runs only in native mode.*conform --worker/);
    },
  );
});
