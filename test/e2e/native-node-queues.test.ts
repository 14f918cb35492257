import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import type { AuditEvent } from '../../src/history/types.js';
import { deriveHistory } from '../../src/history/derive.js';
import { claimWrites } from '../../src/checker/stale-writes.js';
import { heldAtFirstFault, runShippedScenarioHolding } from '../support/scenario-run.js';

// pg-boss and graphile-worker in native mode: their own loops in a Node worker program (not
// leaseproof's loop calling their statements), faults from outside, the audit as the ground
// truth. These tests check that the harness sees what each library does — grants by its
// workers, the holder its handler reports, its own expiry as a sweep — not which verdict the
// library earns (the README quotes the suites' verdicts).
let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
}, 300_000);
afterAll(async () => {
  await env?.stop();
});

const isGrant = (e: AuditEvent) => e.new?.state === 'held' && e.old?.state !== 'held';

const sweptHeld = (e: AuditEvent) => e.old?.state === 'held' && /^w\d+:sweep$/.test(e.app);

describe('the Node libraries in native mode', () => {
  it.each([
    // pg-boss: no claim token, a claim is `<job id>#<retry_count>`; expire() in the supervisor.
    ['pg-boss-native', /^[0-9a-f-]{36}#\d+$/],
    // graphile-worker: a claim is `<job id>#<attempts>`; resetLockedAt in the worker pool.
    ['graphile-worker-native', /^\d+#\d+$/],
  ])(
    "%s: its own loop fetches and completes, and its own expiry brings back a paused worker's job as a sweep",
    async (queue, holderShape) => {
      // A pause, not a crash: a library that idles between polls may be crashed holding
      // nothing; a worker paused 250 ms after go holds its first job for the whole 3 s — if it
      // has fetched one by then, which a loaded machine can delay: such a run shows nothing
      // of the expiry, and is run again (at most three times).
      const run = await runShippedScenarioHolding(env, queue, 'late-fail-after-takeover', 'w1');
      expect(heldAtFirstFault(run, 'w1'), 'w1 held a job when it was paused').toBe(true);
      expect(run.result.valid).not.toBe('error');
      expect(run.drained).toBe(true);
      // Grants came from the library's fetch on the workers' own connections.
      const grants = run.audit.filter(isGrant);
      expect(grants.length).toBeGreaterThanOrEqual(4);
      expect(grants.every((e) => /^w\d+$/.test(e.app))).toBe(true);
      // Every handler reported its claim under the holder the audit saw.
      const holders = new Set(grants.map((e) => e.new!.holder));
      const claims = run.worker.filter((e) => e.kind === 'claim' && e.outcome === 'ok');
      expect(claims.length).toBeGreaterThanOrEqual(4);
      expect(claims.every((e) => holders.has(e.token!) && holderShape.test(e.token!))).toBe(true);
      // The pause left w1's job held; the library's own expiry, in w2's process, released it:
      // recorded as w2's sweep, not as its write on a claim it never held, and w2 took the job.
      const released = run.audit.filter(sweptHeld);
      expect(released.map((e) => e.app)).toContain('w2:sweep');
      for (const e of released) {
        expect(
          grants.some((g) => g.job === e.job && g.app === 'w2' && g.t >= e.t),
          `job ${e.job} re-granted after its sweep`,
        ).toBe(true);
      }
      const writes = claimWrites(deriveHistory(run.history));
      const swept = new Set(released.map((e) => `${e.xid}/${e.job}`));
      expect(writes.filter((w) => swept.has(`${w.event.xid}/${w.event.job}`))).toEqual([]);
      expect(run.history.header.queueTerms).toMatchObject({
        extendsLease: false,
        maintenance: { intervalMs: expect.any(Number) as number },
      });
    },
    300_000,
  );
});
