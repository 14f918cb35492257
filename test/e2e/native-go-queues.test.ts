import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareQueueAdapter } from '../../src/libraries/load-adapter.js';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import type { AuditEvent } from '../../src/history/types.js';
import { deriveHistory } from '../../src/history/derive.js';
import { claimWrites } from '../../src/checker/stale-writes.js';
import { goSkipReason, haveGo } from '../support/go.js';
import { runShippedScenario } from '../support/scenario-run.js';

// River in native mode: its own client in a Go worker program, faults from outside, the audit as
// the ground truth. These tests check that the harness sees what River does — grants by its
// workers, the holder its handler reports, its rescuer's writes as River's sweep — not which
// verdict River earns (the README quotes the suite's verdicts).
let env: StartedEnvironment;
beforeAll(async () => {
  if (!haveGo) return;
  // The program is built (or found) before any run, as `leaseproof suite` does.
  await prepareQueueAdapter('river');
  env = await new EmbeddedEnvironmentProvider().start();
}, 600_000);
afterAll(async () => {
  await env?.stop();
});

const isGrant = (e: AuditEvent) => e.new?.state === 'held' && e.old?.state !== 'held';

describe.skipIf(!haveGo)(`River in native mode${goSkipReason}`, () => {
  it("its own client fetches and completes, and its leader's rescuer brings back a crashed worker's job", async () => {
    const run = await runShippedScenario(env, 'river', 'crash-mid-handler');
    expect(run.result.valid).not.toBe('error');
    expect(run.drained).toBe(true);
    // Grants came from River's fetch on the workers' own connections.
    const grants = run.audit.filter(isGrant);
    expect(grants.every((e) => /^w\d+$/.test(e.app))).toBe(true);
    // Every handler reported its claim under the holder the audit saw (attempt@client).
    const holders = new Set(grants.map((e) => e.new!.holder));
    const claims = run.worker.filter((e) => e.kind === 'claim' && e.outcome === 'ok');
    expect(claims.length).toBeGreaterThanOrEqual(30);
    expect(
      claims.every((e) => holders.has(e.token!) && /^\d+@w\d+-[0-9a-f]{8}$/.test(e.token!)),
    ).toBe(true);
    // The crash left a job running; River's rescuer, inside whichever worker led, made it
    // retryable: recorded as that worker's sweep, not as its write on a claim it never held.
    const rescues = run.audit.filter(
      (e) => e.old?.state === 'held' && e.new?.state === 'pending' && /^w\d+:sweep$/.test(e.app),
    );
    expect(rescues.length).toBeGreaterThan(0);
    expect(run.byName['no-lost-job']?.valid).toBe('valid');
    // …so no rescue is judged as a worker's write on a claim (I1's stale writes): no rescue is
    // among them, where it would be had the audit named it after the worker alone.
    const writes = claimWrites(deriveHistory(run.history));
    const rescued = new Set(rescues.map((e) => `${e.xid}/${e.job}`));
    expect(writes.filter((w) => rescued.has(`${w.event.xid}/${w.event.job}`))).toEqual([]);
    expect(run.history.header.queueTerms).toMatchObject({
      extendsLease: false,
      maintenance: { intervalMs: expect.any(Number) as number },
    });
    // River's own settings, the lease being JobTimeout: the checkers judge the rescue horizon.
    const terms = run.history.header.queueTerms;
    expect(terms?.settings?.anchor).toBe('JobTimeout');
    expect(run.history.header.lease.durationMs).toBe(terms?.settings?.values.RescueStuckJobsAfter);
    expect(terms?.attemptLimitMs).toBe(terms?.settings?.values.JobTimeout);
  }, 300_000);
});
