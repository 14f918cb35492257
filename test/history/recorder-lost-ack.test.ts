import { afterAll, beforeAll, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import type { AuditEvent, History, WorkerHistoryEvent } from '../../src/history/types.js';
import { waitForDrain } from '../../src/pool/queue-database.js';
import { startRecordedRun } from './support/recorded-run.js';

let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

// The ack's reply waits for at most the lease (the worker's statement timeout), then is `info`.
const LEASE = { durationMs: 1_500, heartbeatMs: 250, extendByMs: 1_500, pollMs: 50 };

/**
 * One worker, one job whose last unit is long: the blackhole goes on while that unit runs, so the
 * handler's ack — the next statement the worker sends — certainly goes out into it. Only the
 * server→worker direction is cut: the ack reaches the server and commits; its reply never
 * comes back. The first unit is long enough for the heartbeat to have its connection open
 * before the cut (a connection opened during it would never finish its handshake).
 */
async function ackIntoDownstreamBlackhole(): Promise<{
  history: History;
  toxicAddedAt: number;
  ackInvokeReceivedAt: number;
}> {
  await using run = await startRecordedRun(env, {
    scenario: 'lost-ack-reply',
    queue: 'reference',
    workers: 1,
    lease: LEASE,
    plans: [
      [
        { ms: 600, sync: false, effect: true },
        { ms: 700, sync: false, effect: false },
      ],
    ],
  });
  const worker = run.pool.worker('w1');
  const proxy = run.pool.proxy('w1');
  await worker.waitFor((e) => e.kind === 'unit' && e.unit === 1, 10_000);
  await proxy.addToxic({
    name: 'blackhole-downstream',
    type: 'timeout',
    stream: 'downstream',
    attributes: { timeout: 0 },
  });
  const toxicAddedAt = Date.now();
  const fault = { fault: 'partition', target: 'w1', id: 'p1' } as const;
  run.recorder.recordNemesis({
    ...fault,
    phase: 'start',
    at: toxicAddedAt,
    detail: { mode: 'blackhole', direction: 'downstream' },
  });
  const ackInvoke = await worker.waitFor((e) => e.kind === 'ack' && e.phase === 'invoke', 5_000);
  await worker.waitFor((e) => e.kind === 'ack' && e.phase === 'complete', 10_000);
  await proxy.heal();
  run.recorder.recordNemesis({ ...fault, phase: 'end' });
  await waitForDrain(run.database, run.adapter, 10_000);
  await run.pool.stop();
  const history = await run.recorder.finish({ drained: true });
  return { history, toxicAddedAt, ackInvokeReceivedAt: ackInvoke.receivedAt };
}

it('an ack whose reply was lost is info for the worker, and committed in the audit', async () => {
  const { history, toxicAddedAt, ackInvokeReceivedAt } = await ackIntoDownstreamBlackhole();
  // The set-up did what it says: the ack went out after the blackhole was in place.
  expect(ackInvokeReceivedAt).toBeGreaterThan(toxicAddedAt);

  const worker = history.events.filter((e): e is WorkerHistoryEvent => e.type === 'worker');
  const claim = worker.find((e) => e.kind === 'claim' && e.outcome === 'ok');
  const token = claim?.token;
  expect(token).toBeDefined();
  const acks = worker.filter((e) => e.kind === 'ack' && e.token === token);
  expect(acks.map((e) => [e.phase, e.outcome])).toEqual([
    ['invoke', undefined],
    ['complete', 'info'],
  ]);
  const [invoke, info] = acks as [WorkerHistoryEvent, WorkerHistoryEvent];
  expect(info.detail).toMatch(/no reply within 1500ms/);

  // The truth: the worker's own connection committed held → completed under its claim, after it
  // sent the ack and long before it gave up on the reply.
  const audit = history.events.filter((e): e is AuditEvent => e.type === 'audit');
  const completions = audit.filter((e) => e.new?.state === 'completed');
  expect(completions).toHaveLength(1);
  const [commit] = completions as [AuditEvent];
  expect(commit).toMatchObject({
    op: 'update',
    app: 'w1',
    job: claim?.job,
    old: { state: 'held', holder: token },
    new: { state: 'completed', holder: null },
  });
  const slack = history.header.clockUncertaintyMs + 1;
  expect(commit.t).toBeGreaterThan(invoke.t - slack);
  expect(info.t - commit.t).toBeGreaterThan(LEASE.durationMs - 100);
  // It committed inside the partition, and under an unexpired lease: a valid ack, seen only here.
  const [start, end] = history.events.filter((e) => e.type === 'nemesis');
  expect(commit.t).toBeGreaterThan(start!.t);
  expect(commit.t).toBeLessThan(end!.t);
  expect(commit.old!.deadline!).toBeGreaterThan(commit.t);
  // The heartbeat thread's extensions, timed on that thread's own clock, each commit between
  // their own invoke and the next one (the heartbeat sends one extension at a time and waits for
  // its reply); every one committed, also the one whose reply the blackhole swallowed. The bound
  // is the order of events, not a wall-time figure a loaded runner could exceed.
  const extensions = audit.filter((e) => e.old?.state === 'held' && e.new?.state === 'held');
  const invokes = worker.filter((e) => e.kind === 'extend' && e.phase === 'invoke');
  expect(extensions.length).toBeGreaterThanOrEqual(2);
  expect(invokes).toHaveLength(extensions.length);
  extensions.forEach((commit, i) => {
    expect(commit.t).toBeGreaterThan(invokes[i]!.t - slack);
    expect(commit.t).toBeLessThan((invokes[i + 1]?.t ?? end!.t) + slack);
  });
  // Nobody else touched the job: one grant, one completion, no retry.
  expect(audit.filter((e) => e.new?.state === 'held' && e.old?.state !== 'held')).toHaveLength(1);
});
