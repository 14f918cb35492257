import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgBoss12Queue } from '../../src/libraries/pg-boss/v12-adapter.js';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { EnvironmentError } from '../../src/errors.js';
import type { AuditEvent } from '../../src/history/types.js';
import { runShippedScenario } from '../support/scenario-run.js';

// pg-boss 12 through its own loop, under the Node 22 and the pg-boss 12 leaseproof installs from
// the npm registry on first need. What is checked is that the run goes end to end and is judged,
// and that the harness sees what pg-boss 12 adds (its heartbeat, as extensions by the holder) —
// not which verdict pg-boss earns (the README quotes the suite's).
let env: StartedEnvironment | undefined;
let unavailable: string | undefined;
beforeAll(async () => {
  try {
    await pgBoss12Queue.native!.program();
  } catch (error) {
    // No registry here (or no npm): nothing of pg-boss 12 can run. Anything else is a failure.
    if (!(error instanceof EnvironmentError)) throw error;
    unavailable = `Node 22 or pg-boss 12 could not be installed from the npm registry: ${error.message}`;
    return;
  }
  env = await new EmbeddedEnvironmentProvider().start();
}, 600_000);
afterAll(async () => {
  await env?.stop();
});

const isGrant = (e: AuditEvent) => e.new?.state === 'held' && e.old?.state !== 'held';
const isExtension = (e: AuditEvent) =>
  e.old?.state === 'held' &&
  e.new?.state === 'held' &&
  e.new.holder === e.old.holder &&
  (e.new.deadline ?? 0) > (e.old.deadline ?? 0);

describe('pg-boss 12 (--queue pg-boss@12)', () => {
  it('at its defaults it has no heartbeat: the lease is expireInSeconds, never extended', async (ctx) => {
    if (unavailable !== undefined) return ctx.skip(unavailable);
    const run = await runShippedScenario(env!, 'pg-boss@12', 'crash-mid-handler');
    expect(['valid', 'invalid', 'unknown']).toContain(run.result.valid);
    expect(run.history.header.queueTerms).toMatchObject({ extendsLease: false });
    expect(run.history.header.queueTerms?.settings?.anchor).toMatch(/otherwise expireInSeconds/);
    expect(run.audit.filter(isGrant).length).toBeGreaterThanOrEqual(1);
    expect(run.audit.filter(isExtension)).toEqual([]);
  }, 300_000);

  it("aborts an expired job's signal, and a handler that ignores it is recorded as cancelled (I7 warns, not fails)", async (ctx) => {
    if (unavailable !== undefined) return ctx.skip(unavailable);
    const run = await runShippedScenario(env!, 'pg-boss@12', 'handler-ignores-cancellation');
    // pg-boss 12's work() aborts the job's signal at its handler timeout (expireInSeconds); the
    // plan's handler runs on, and the native worker says the library did cancel it.
    expect(run.worker.some((e) => e.kind === 'abort-ignored')).toBe(true);
    expect(run.byName['bounded-zombie']?.valid).not.toBe('invalid');
  }, 300_000);

  // The heartbeat deployment: a stated heartbeatSeconds is the lease (k = lease / 30 s).
  for (const scenario of ['partition-during-heartbeats', 'late-fail-after-takeover']) {
    it(`${scenario} with heartbeatSeconds stated runs end to end under Node 22 and is judged; its heartbeats are extensions by the holder`, async (ctx) => {
      if (unavailable !== undefined) return ctx.skip(unavailable);
      const run = await runShippedScenario(env!, 'pg-boss@12', scenario, {
        heartbeatSeconds: '30s',
      });
      expect(['valid', 'invalid', 'unknown']).toContain(run.result.valid);
      expect(run.history.header.queue).toBe('pg-boss@12');
      expect(run.history.header.queueTerms).toMatchObject({ extendsLease: true });
      const grants = run.audit.filter(isGrant);
      expect(grants.length).toBeGreaterThanOrEqual(1);
      expect(grants.every((e) => /^w\d+$/.test(e.app))).toBe(true);
      // Each job runs longer than pg-boss's heartbeat period: its touch() moved heartbeat_on.
      expect(run.audit.filter(isExtension).some((e) => /^w\d+$/.test(e.app))).toBe(true);
    }, 300_000);
  }
});
