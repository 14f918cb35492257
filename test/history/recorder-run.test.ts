import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import { historyEnd, readHistory, writeHistory } from '../../src/history/jsonl.js';
import type {
  AuditEvent,
  EffectEvent,
  History,
  HistoryEvent,
  NemesisEvent,
  WorkerHistoryEvent,
} from '../../src/history/types.js';
import { executeRun } from '../../src/scenario/execute-run.js';
import { VERSION } from '../../src/version.js';
import { units } from '../support/queue-run.js';

let env: StartedEnvironment;
let history: History;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
  history = await recordSmallRun();
});
afterAll(async () => {
  await env?.stop();
});

const LEASE = { durationMs: 2_000, heartbeatMs: 300, extendByMs: 2_000, pollMs: 50 };
const JOBS = 20;

/**
 * 2 workers, 20 jobs of two 20 ms units each with an effect, and a short latency fault, through
 * the executor: the history a scenario run records.
 */
async function recordSmallRun(): Promise<History> {
  const { history } = await executeRun(env, {
    scenario: 'recorder-small-run',
    seed: 0,
    queue: 'reference',
    workers: 2,
    lease: LEASE,
    plans: Array.from({ length: JOBS }, () => units(2, 20)),
    faults: [
      {
        kind: 'latency',
        atMs: 0,
        forMs: 200,
        workers: ['w2'],
        latencyMs: 5,
        jitterMs: 0,
        direction: 'downstream',
      },
    ],
    drainTimeoutMs: 30_000,
  });
  return history;
}

const ofType = <T extends HistoryEvent['type']>(type: T) =>
  history.events.filter((e): e is Extract<HistoryEvent, { type: T }> => e.type === type);

describe('a recorded run of 2 workers and 20 jobs', () => {
  it('has a filled-in header', () => {
    const { header } = history;
    expect(header).toMatchObject({
      type: 'header',
      version: 1,
      scenario: 'recorder-small-run',
      seed: 0,
      queue: 'reference',
      lease: LEASE,
      workers: ['w1', 'w2'],
    });
    expect(header.versions.leaseproof).toBe(VERSION);
    expect(header.versions.node).toBe(process.version);
    expect(header.versions.postgres).toMatch(/^\d+(\.\d+)?/);
    expect(header.versions.toxiproxy).toMatch(/\d+\.\d+/);
    expect(Math.abs(header.clockOffsetMs)).toBeLessThan(5);
    expect(header.clockUncertaintyMs).toBeGreaterThan(0);
    expect(header.startedAt).toBeLessThanOrEqual(history.events[0]!.t);
  });

  it('orders every event by t and ends with the end event', () => {
    const ts = history.events.map((e) => e.t);
    expect(ts).toEqual([...ts].sort((a, b) => a - b));
    expect(historyEnd(history)).toMatchObject({ type: 'end', drained: true });
    expect(history.events.filter((e) => e.type === 'end')).toHaveLength(1);
  });

  it('has, for every job, its enqueue, insert, claim and completion on the database clock', () => {
    const jobs = ofType('job');
    expect(jobs).toHaveLength(JOBS);
    const audit = ofType('audit');
    for (const job of jobs) {
      expect(job).toMatchObject({ units: 2, maxUnitMs: 20 });
      const rows = audit.filter((e) => e.job === job.job);
      const insert = rows.find((e) => e.op === 'insert');
      expect(insert?.new?.state).toBe('pending');
      // The job is dated by its insert, and comes right before it.
      expect(job.t).toBe(insert?.t);
      expect(history.events.indexOf(job)).toBeLessThan(history.events.indexOf(insert!));
      const grants = rows.filter((e) => e.old?.state === 'pending' && e.new?.state === 'held');
      expect(grants).toHaveLength(1);
      expect(['w1', 'w2']).toContain(grants[0]!.app);
      const completions = rows.filter((e) => e.new?.state === 'completed');
      expect(completions).toHaveLength(1);
      expect(completions[0]).toMatchObject({ app: grants[0]!.app });
      expect(completions[0]!.old?.holder).toBe(grants[0]!.new?.holder);
    }
  });

  it('has the effects, each under the claim that was held', () => {
    const effects: EffectEvent[] = ofType('effect');
    expect(effects).toHaveLength(2 * JOBS);
    const grants = new Map(
      ofType('audit')
        .filter((e) => e.new?.state === 'held' && e.old?.state === 'pending')
        .map((e) => [e.new!.holder!, e] as const),
    );
    for (const effect of effects) {
      const grant = grants.get(effect.token);
      expect(grant?.job).toBe(effect.job);
      expect(grant?.app).toBe(effect.worker);
      expect(effect.t).toBeGreaterThan(grant!.t);
    }
  });

  it('has the nemesis events on the database clock, inside the run', () => {
    const nemesis: NemesisEvent[] = ofType('nemesis');
    expect(nemesis.map((e) => e.phase)).toEqual(['start', 'end']);
    expect(nemesis[0]).toMatchObject({ fault: 'latency', target: 'w2', detail: { latencyMs: 5 } });
    expect(nemesis[1]!.t - nemesis[0]!.t).toBeGreaterThanOrEqual(200);
    expect(nemesis[0]!.t).toBeGreaterThan(history.header.startedAt);
  });

  it("has the workers' events, converted, close to what the database saw", () => {
    const workers: WorkerHistoryEvent[] = ofType('worker');
    for (const id of ['w1', 'w2']) {
      const own = workers.filter((e) => e.worker === id);
      expect(own[0]?.kind).toBe('ready');
      expect(own.at(-1)).toMatchObject({ kind: 'exit', detail: 'SIGTERM' });
    }
    // Each event once, although the executor hands the recorder the pool's events a second
    // time once the workers have stopped.
    const seen = new Set(workers.map((e) => JSON.stringify(e)));
    expect(seen.size).toBe(workers.length);

    // A worker reports a claim after the server granted it: the lag is the reply's trip back
    // plus the IPC hop, never negative beyond the clock offset's uncertainty.
    const grants = new Map<string, AuditEvent>();
    for (const e of ofType('audit')) {
      if (e.new?.state === 'held' && e.old?.state === 'pending') grants.set(e.new.holder!, e);
    }
    const claims = workers.filter((e) => e.kind === 'claim' && e.outcome === 'ok');
    expect(claims).toHaveLength(JOBS);
    const lags = claims.map((claim) => {
      expect(claim).toMatchObject({ phase: 'complete' });
      const grant = grants.get(claim.token!);
      expect(grant).toMatchObject({ job: claim.job, app: claim.worker });
      return claim.t - grant!.t;
    });
    const acks = workers.filter((e) => e.kind === 'ack' && e.phase === 'complete');
    expect(acks.map((e) => e.outcome)).toEqual(Array(JOBS).fill('ok'));
    const sorted = [...lags].sort((a, b) => a - b);
    console.log(
      `claim lag worker − audit (ms): min ${sorted[0]?.toFixed(3)}, ` +
        `median ${sorted[sorted.length >> 1]?.toFixed(3)}, max ${sorted.at(-1)?.toFixed(3)}`,
    );
    // What lease-honored's ε must absorb: over the extended protocol, the statement's time is
    // read a little after the transaction's now(), which the reference's deadlines are built on.
    const grantsList = [...grants.values()];
    const stmtLag = Math.max(...grantsList.map((g) => g.stmtT - g.txnT));
    const leaseError = Math.max(
      ...grantsList.map((g) => Math.abs(g.new!.deadline! - g.txnT - LEASE.durationMs)),
    );
    console.log(
      `grants: max stmtT − txnT ${stmtLag.toFixed(3)} ms, max |deadline − txnT − lease| ${leaseError.toFixed(4)} ms`,
    );
    expect(leaseError).toBeLessThan(0.01);
    const slack = history.header.clockUncertaintyMs + 1;
    for (const lag of lags) expect(lag).toBeGreaterThan(-slack);
    // Bounded above by the order of events, not by a wall-time figure a loaded runner could
    // exceed: a worker reports its claim before it acks, so before the ack commits.
    const ackCommits = new Map<string, AuditEvent>();
    for (const e of ofType('audit')) {
      if (e.old?.state === 'held' && e.new?.state === 'completed') ackCommits.set(e.old.holder!, e);
    }
    for (const claim of claims) {
      expect(claim.t).toBeLessThan(ackCommits.get(claim.token!)!.t + slack);
    }
    // And typically close: the median is the reply's trip plus one IPC hop.
    expect(sorted[sorted.length >> 1]).toBeLessThan(100);
  });

  it('survives a JSONL round trip unchanged', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'leaseproof-history-'));
    try {
      const file = join(dir, 'run.jsonl');
      await writeHistory(file, history);
      expect(await readHistory(file)).toEqual(history);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
