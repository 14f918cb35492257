import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { MAINTENANCE_APP } from '../../src/pool/maintenance-loop.js';
import { runAndCheck } from '../../src/scenario/run-and-check.js';
import { loadScenario, scenarioToRunPlan } from '../../src/scenario/load-scenario.js';
import type { AuditEvent } from '../../src/history/types.js';

// The real libraries, from their npm packages, through leaseproof's workers, faults and
// checkers: one curated scenario each. What the run finds is asserted as found (see the README's
// "Testing pg-boss" and "Testing graphile-worker" for what it means for a user).
let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

async function runScenario(queue: string, file: string) {
  const plan = scenarioToRunPlan(await loadScenario(file), { queue });
  const { history, drained, result } = await runAndCheck(env, plan);
  const byName = Object.fromEntries(result.results.map((r) => [r.checker, r]));
  const audit = history.events.filter((e): e is AuditEvent => e.type === 'audit');
  return { plan, history, drained, byName, audit };
}

/** Every write to the library's table came from a worker's own connection, or the harness's. */
function expectOwnConnections(audit: AuditEvent[], workers: string[]): void {
  const apps = new Set(audit.map((e) => e.app));
  for (const app of apps) {
    expect([...workers, 'leaseproof-controller', MAINTENANCE_APP]).toContain(app);
  }
  const granters = new Set(
    audit.filter((e) => e.new?.state === 'held' && e.old?.state !== 'held').map((e) => e.app),
  );
  expect([...granters].every((app) => workers.includes(app))).toBe(true);
  expect(granters.size).toBeGreaterThan(0);
}

describe('pg-boss 10, through its own fetch / complete / fail / expire', () => {
  it('pause-past-lease: its complete() commits after the lease ran out — the strict contract, which pg-boss does not promise (I1 warns); I7 from the deadline, I9 n/a', async () => {
    const run = await runScenario('pg-boss', 'scenarios/pause-past-lease.yaml');
    expect(run.drained).toBe(true);
    // The scenario's 800 ms lease in pg-boss's whole seconds, stated in the history.
    expect(run.history.header.lease.durationMs).toBe(1_000);
    expect(run.history.header.queueTerms).toMatchObject({
      requestedLease: { durationMs: 800 },
      extendsLease: false,
      notes: expect.arrayContaining([
        expect.stringMatching(/^pg-boss 10\./),
        expect.stringMatching(/lease is pg-boss's expireInSeconds \(15m, its default\)/),
        expect.stringMatching(/rounded up to 1000 ms/),
      ]) as string[],
      // maintenanceIntervalSeconds: 120 s × k would be 107 ms; held at pg-boss's least, 1 s.
      maintenance: { intervalMs: 1_000 },
    });
    expectOwnConnections(run.audit, run.history.header.workers);
    expect(run.audit.filter((e) => e.op === 'delete')).toEqual([]);
    const { byName } = run;
    // pg-boss expires a job only when maintenance acts: it is judged by the fenced contract, and
    // its completions after the deadline with nobody re-claiming are told as the strict one's.
    expect(run.history.header.queueTerms?.fencedOnly).toMatch(/failed because of expiration/);
    const i1 = byName['no-stale-ack'];
    expect(i1?.counts.strictOnly).toBeGreaterThan(0);
    expect(i1?.warnings?.[0]).toMatch(
      /^the strict lease contract, which this queue does not promise/,
    );
    expect(i1?.evidence[0]?.message).toMatch(
      /ack by w\d \(claim \d\) committed at .* after its claim expired/,
    );
    expect(byName['lease-honored']?.valid).toBe('valid');
    expect(byName['single-completion']?.valid).toBe('valid');
    expect(byName['no-lost-job']?.valid).toBe('valid');
    // No heartbeat: the watchdog is judged from the deadline (leaseproof's loop keeps it).
    expect(byName['bounded-zombie']?.valid).toBe('valid');
    expect(byName['explained-expiry']?.valid).toBe('n/a');
    expect(byName['explained-expiry']?.why).toMatch(/no lease extension/);
  }, 120_000);
});

describe('graphile-worker 0.17, through its own getJobs / completeJobs / failJobs / resetLockedAt', () => {
  it('pause-past-lease: its completeJobs() deletes after the (compressed) lock ran out (I1)', async () => {
    const run = await runScenario('graphile-worker', 'scenarios/pause-past-lease.yaml');
    expect(run.drained).toBe(true);
    expect(run.history.header.lease.durationMs).toBe(800);
    const terms = run.history.header.queueTerms;
    expect(terms).toMatchObject({ extendsLease: false, maintenance: { intervalMs: 33.333 } });
    // The lease is graphile-worker's lock timeout: one factor, 800 ms / 4 h, for every duration.
    const settings = Object.fromEntries(terms!.settings!.settings.map((s) => [s.name, s]));
    expect(settings.lockTimeout).toMatchObject({ library: '4h', run: '800ms', constant: true });
    expect(settings.maxResetLockedInterval).toMatchObject({ library: '10m', run: '33.333ms' });
    expect(terms?.rescaled).toEqual([]);
    expectOwnConnections(run.audit, run.history.header.workers);
    // Completion is a DELETE by a worker; a stale lock is freed by resetLockedAt.
    expect(run.audit.some((e) => e.op === 'delete' && e.app.startsWith('w'))).toBe(true);
    const { byName } = run;
    expect(byName['no-stale-ack']?.valid).toBe('invalid');
    expect(byName['no-stale-ack']?.evidence[0]?.message).toMatch(
      /ack by w\d .* after its claim expired/,
    );
    expect(byName['lease-honored']?.valid).toBe('valid');
    expect(byName['single-completion']?.valid).toBe('valid');
    expect(byName['no-lost-job']?.valid).toBe('valid');
    expect(byName['bounded-zombie']?.valid).toBe('valid');
    expect(byName['explained-expiry']?.valid).toBe('n/a');
  }, 120_000);
});
