import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareQueueAdapter } from '../../src/libraries/load-adapter.js';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import type { AuditEvent } from '../../src/history/types.js';
import { deriveHistory } from '../../src/history/derive.js';
import { claimWrites } from '../../src/checker/stale-writes.js';
import { haveJava, javaSkipReason } from '../support/java.js';
import { heldAtFirstFault, runShippedScenarioHolding } from '../support/scenario-run.js';

// db-scheduler in native mode: its own Scheduler in a JVM, faults from outside, the audit as
// the ground truth. These tests check that the harness sees what db-scheduler does — picks by
// its schedulers, the holder its handler reports, its dead-execution revive as a sweep, the
// deleted row as the completion — not which verdict db-scheduler earns (the README quotes the
// suite's verdicts).
let env: StartedEnvironment;
beforeAll(async () => {
  if (!haveJava) return;
  // The jar is built (or found) before any run, as `leaseproof suite` does.
  await prepareQueueAdapter('db-scheduler');
  env = await new EmbeddedEnvironmentProvider().start();
}, 600_000);
afterAll(async () => {
  await env?.stop();
});

const isGrant = (e: AuditEvent) => e.new?.state === 'held' && e.old?.state !== 'held';

describe.skipIf(!haveJava)(`db-scheduler in native mode${javaSkipReason}`, () => {
  it("its own Scheduler picks and completes, and another scheduler revives a paused worker's execution", async () => {
    // A pause, not a crash: a scheduler between two polls may be crashed holding nothing; one
    // paused 250 ms after go holds its first one-second job through the 2 s pause.
    // …if it has picked one by then, which a loaded machine can delay: such a run shows nothing
    // of the revive, and is run again (at most three times).
    const run = await runShippedScenarioHolding(env, 'db-scheduler', 'pause-mid-long-job', 'w1');
    expect(heldAtFirstFault(run, 'w1'), 'w1 held an execution when it was paused').toBe(true);
    expect(run.result.valid).not.toBe('error');
    expect(run.drained).toBe(true);
    // Picks came from db-scheduler's polling on the workers' own connections.
    const grants = run.audit.filter(isGrant);
    expect(grants.every((e) => /^w\d+$/.test(e.app))).toBe(true);
    // Every handler reported its claim under the holder the audit saw (picked_by#version).
    const holders = new Set(grants.map((e) => e.new!.holder));
    const claims = run.worker.filter((e) => e.kind === 'claim' && e.outcome === 'ok');
    expect(claims.length).toBeGreaterThanOrEqual(3);
    expect(
      claims.every((e) => holders.has(e.token!) && /^w\d+-[0-9a-f]{8}#\d+$/.test(e.token!)),
    ).toBe(true);
    // Heartbeats moved deadlines forward under the same holder: lease extensions.
    const extensions = run.audit.filter(
      (e) =>
        e.old?.state === 'held' &&
        e.new?.state === 'held' &&
        e.old.holder === e.new.holder &&
        e.new.deadline! > e.old.deadline!,
    );
    expect(extensions.length).toBeGreaterThan(0);
    // Completion deletes the row.
    expect(run.audit.filter((e) => e.op === 'delete').length).toBe(3);
    // The pause left an execution picked; the dead-execution detection of the other
    // scheduler revived it: recorded as that worker's sweep, not as its write on a claim it
    // never held.
    const revives = run.audit.filter(
      (e) => e.old?.state === 'held' && e.new?.state === 'pending' && /^w\d+:sweep$/.test(e.app),
    );
    expect(revives.length).toBeGreaterThan(0);
    expect(run.byName['no-lost-job']?.valid).toBe('valid');
    const writes = claimWrites(deriveHistory(run.history));
    const revived = new Set(revives.map((e) => `${e.xid}/${e.job}`));
    expect(writes.filter((w) => revived.has(`${w.event.xid}/${w.event.job}`))).toEqual([]);
    expect(run.history.header.queueTerms).toMatchObject({
      extendsLease: true,
      maintenance: { intervalMs: expect.any(Number) as number },
    });
    // db-scheduler's own settings, compressed by one factor, are what its JVM ran with.
    const settings = run.history.header.queueTerms?.settings;
    expect(settings?.values).toMatchObject({ missedHeartbeatsLimit: 6, threads: 1 });
    expect(settings?.values.OnFailureRetryLater).toBeCloseTo(settings!.values.heartbeatInterval!);
    expect(run.history.header.queueTerms?.leaseTolerance?.ms).toBeCloseTo(
      settings!.values.heartbeatInterval!,
    );
  }, 300_000);
});
