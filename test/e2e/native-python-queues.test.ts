import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import type { AuditEvent } from '../../src/history/types.js';
import { heldAtFirstFault, runShippedScenario } from '../support/scenario-run.js';
import { havePython, pythonSkipReason } from '../support/python.js';

// Real Python queue libraries in native mode: their own worker loops in worker programs, faults
// from outside, the audit as the ground truth. These tests check that the harness sees what the
// libraries do — grants by their workers, the lease where it lives, the handler's work tied to
// its claims — not which verdict a library earns (the README quotes the suites' verdicts).
let env: StartedEnvironment;
beforeAll(async () => {
  if (havePython) env = await new EmbeddedEnvironmentProvider().start();
}, 300_000);
afterAll(async () => {
  await env?.stop();
});

const runScenario = (queue: string, name: string) => runShippedScenario(env, queue, name);

const isGrant = (e: AuditEvent) => e.new?.state === 'held' && e.old?.state !== 'held';
const isExtension = (e: AuditEvent) =>
  e.old?.state === 'held' &&
  e.new?.state === 'held' &&
  e.old.holder === e.new.holder &&
  e.new.deadline !== null &&
  e.old.deadline !== null &&
  e.new.deadline > e.old.deadline;

describe.skipIf(!havePython)(`Python queue libraries in native mode${pythonSkipReason}`, () => {
  it('pgqueuer: its own loop claims, heartbeats per job and recovers a crashed worker’s job', async () => {
    const run = await runScenario('pgqueuer', 'crash-mid-handler');
    expect(run.result.valid).not.toBe('error');
    expect(run.drained).toBe(true);
    // Grants and extensions came from pgqueuer's own statements on the workers' connections.
    expect(run.audit.filter(isGrant).every((e) => /^w\d+$/.test(e.app))).toBe(true);
    // Every job's handler reported its claim under the holder the audit saw (the queue manager).
    const holders = new Set(run.audit.filter(isGrant).map((e) => e.new!.holder));
    const claims = run.worker.filter((e) => e.kind === 'claim');
    expect(claims.length).toBeGreaterThanOrEqual(30);
    expect(claims.every((e) => holders.has(e.token!))).toBe(true);
    // The crash left a job held; pgqueuer's dequeue re-picked it once its heartbeat went stale.
    expect(run.byName['no-lost-job']?.valid).toBe('valid');
    const takeovers = run.audit.filter(
      (e) => e.old?.state === 'held' && e.new?.state === 'held' && e.old.holder !== e.new.holder,
    );
    expect(takeovers.length).toBeGreaterThan(0);
    expect(run.history.header.queueTerms?.notes.join(' ')).toMatch(/native mode/);
  });

  it('procrastinate: the audit follows its lease into procrastinate_workers (heartbeats extend held jobs)', async () => {
    // A crash timed from `go` can find w1 between two jobs on a loaded machine: run again then.
    let run = await runScenario('procrastinate', 'crash-mid-handler');
    for (let i = 0; i < 2 && !heldAtFirstFault(run, 'w1'); i += 1) {
      run = await runScenario('procrastinate', 'crash-mid-handler');
    }
    expect(run.result.valid).not.toBe('error');
    expect(run.drained).toBe(true);
    const extensions = run.audit.filter(isExtension);
    // Jobs of 160–320 ms under a 333 ms worker heartbeat: some are held across a heartbeat.
    expect(extensions.length).toBeGreaterThan(0);
    expect(extensions.every((e) => /^w\d+$/.test(e.app))).toBe(true);
    // The run's jobs only: the recipe's own jobs (retry_stalled_jobs) share the table.
    const jobs = new Set(run.history.events.flatMap((e) => (e.type === 'job' ? [e.job] : [])));
    expect(jobs.size).toBe(30);
    expect(run.audit.every((e) => jobs.has(e.job))).toBe(true);
    // procrastinate's own recovery, not the harness's: the docs' periodic task, run inside a
    // worker, put the crashed worker's job back with retry_job — recorded as that worker's sweep.
    expect(run.history.header.queueTerms?.maintenance?.description).toMatch(/retry_stalled_jobs/);
    if (heldAtFirstFault(run, 'w1')) {
      const recipe = run.audit.filter((e) => e.app.endsWith(':sweep'));
      expect(recipe.length).toBeGreaterThan(0);
      expect(recipe.every((e) => /^w\d+:sweep$/.test(e.app) && e.new?.state === 'pending')).toBe(
        true,
      );
    }
    expect(run.byName['no-lost-job']?.valid).toBe('valid');
    // A worker unregistering clears worker_id on its finished jobs: bookkeeping, not a second ack.
    expect(run.byName['single-completion']?.valid).toBe('valid');
  }, 180_000);
});
