import { describe, expect, it } from 'vitest';
import { leaseHonored } from '../../src/checker/lease-honored.js';
import type { AuditEvent, History } from '../../src/history/types.js';
import { settleQueueTerms } from '../../src/scenario/queue-terms.js';
import {
  cleanRecoveryAfterPause,
  cleanRun,
  deadlineOffDatabaseClock,
  extensionOnClockHourBehind,
} from './fixtures/anomalies.js';
import { HistoryBuilder, LEASE } from './fixtures/history-builder.js';
import { check, rel } from './support.js';

function grantOffBy(ms: number) {
  const b = new HistoryBuilder(['w1']);
  b.enqueue('1', 0)
    .grant('1', 'w1', 'a', 0, 200 + ms)
    .ack('1', 'w1', 10, 'a');
  return b.end(50).build();
}

describe('lease-honored (I6)', () => {
  it('flags a grant deadline 90 s off the database clock', () => {
    const result = check(leaseHonored, deadlineOffDatabaseClock());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ grants: 1, offGrants: 1 });
    expect(result.stats).toEqual({ maxOffsetMs: 90_000 });
    const [evidence] = result.evidence;
    expect(evidence?.message).toMatch(
      /grant by w1 at \+0ms .* 90000ms later than statement time \+ durationMs \(200ms\)/,
    );
    expect(evidence?.events.map((e) => [e.event.type, rel(e.t)])).toEqual([['audit', 0.05]]);
  });

  it('flags an extension made on a worker clock an hour behind', () => {
    const result = check(leaseHonored, extensionOnClockHourBehind());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ extensions: 1, offExtensions: 1 });
    expect(result.evidence[0]?.message).toMatch(
      /extension .* 3600000ms earlier than statement time \+ extendByMs/,
    );
  });

  it('tolerates ε and no more', () => {
    expect(check(leaseHonored, grantOffBy(4)).valid).toBe('valid');
    expect(check(leaseHonored, grantOffBy(6)).valid).toBe('invalid');
    expect(check(leaseHonored, grantOffBy(6), { epsilonMs: 10 }).valid).toBe('valid');
  });

  it('accepts a deadline from now() of a longer transaction (txnT)', () => {
    const history = grantOffBy(0);
    const grant = history.events.find(
      (e): e is AuditEvent => e.type === 'audit' && e.new?.state === 'held',
    )!;
    grant.txnT = grant.stmtT - 30;
    grant.new = { ...grant.new!, deadline: grant.txnT + 200 };
    expect(check(leaseHonored, history).valid).toBe('valid');
  });

  it('passes clean histories', () => {
    expect(check(leaseHonored, cleanRun()).valid).toBe('valid');
    expect(check(leaseHonored, cleanRecoveryAfterPause()).valid).toBe('valid');
  });
});

describe('lease-honored (I6): what an off deadline was measured against', () => {
  /**
   * One job: enqueued at 0, granted at 50, perhaps extended at 100; lease 200 ms, extensions
   * 300 ms (unlike the lease, so that the claim time + extendBy is another deadline than the
   * grant's).
   */
  function offHistory(grantDeadline: number, extensionDeadline?: number, clockOffsetMs?: number) {
    const b = new HistoryBuilder(['w1'], { lease: { ...LEASE, extendByMs: 300 } });
    b.enqueue('1', 0);
    if (clockOffsetMs !== undefined) b.fault('clock', 'w1', 10, 300);
    b.grant('1', 'w1', 'a', 50, grantDeadline);
    if (extensionDeadline !== undefined) b.extend('1', 'w1', 100, extensionDeadline);
    b.ack('1', 'w1', 150, 'a');
    const history = b.end(400).build();
    for (const e of history.events) {
      if (e.type === 'nemesis' && e.phase === 'start') e.detail = { offsetMs: clockOffsetMs };
    }
    return history;
  }
  const cause = (history: ReturnType<typeof offHistory>) =>
    check(leaseHonored, history).evidence.map((e) => e.message.split(' — ')[1]);

  it("names the writer's clock when a clock fault's offset explains it", () => {
    expect(cause(offHistory(50 + 200 + 90_000, undefined, 90_000))).toEqual([
      "lease arithmetic on w1's clock, which clock fault f1 set 90000ms ahead, not the database's",
    ]);
  });

  it('says off the database clock only where nothing on it explains the deadline', () => {
    expect(cause(offHistory(50 + 200 + 777))).toEqual([
      expect.stringMatching(
        /matches no starting point .*: lease arithmetic off the database clock$/,
      ),
    ]);
    // The same deadline beside a clock fault of another size is not blamed on that clock.
    expect(cause(offHistory(50 + 200 + 777, undefined, 90_000))[0]).toMatch(
      /off the database clock$/,
    );
  });

  it('names the claim time, the old deadline and the enqueue time as starting points', () => {
    expect(cause(offHistory(250, 50 + 300))).toEqual([
      "it is the claim's grant time (+50ms) + extendByMs: the arithmetic started from when the job was claimed, not from the statement",
    ]);
    expect(cause(offHistory(250, 250 + 300))).toEqual([
      "it is the old deadline (+250ms) + extendByMs: the arithmetic added to the deadline instead of starting from the statement's time",
    ]);
    expect(cause(offHistory(0 + 200))).toEqual([
      'it is the enqueue time (+0ms) + durationMs: the arithmetic started from when the job was enqueued',
    ]);
  });

  it('names a lease in the wrong unit', () => {
    expect(cause(offHistory(50 + 200 * 1000))).toEqual([
      'it is statement time + durationMs taken as seconds: a lease in the wrong unit',
    ]);
  });
});

describe("lease-honored (I6): a lease tolerance the queue's library declares", () => {
  // db-scheduler's run terms at the curated lease of 1 s: one heartbeatInterval, 1 s / 6.
  const ONE_SECOND = { durationMs: 1_000, heartbeatMs: 1_000 / 6, extendByMs: 1_000, pollMs: 6 };

  /** One job granted at 50 with its deadline `grantOff` from 50 + 1 s, extended at 300 likewise. */
  function history(grantOff: number, extensionOff = 0, skewMs?: number) {
    const b = new HistoryBuilder(['w1'], { lease: ONE_SECOND });
    b.enqueue('1', 0);
    if (skewMs !== undefined) b.fault('clock', 'w1', 10, 400);
    b.grant('1', 'w1', 'a', 50, 50 + 1_000 + grantOff);
    b.extend('1', 'w1', 300, 300 + 1_000 + extensionOff);
    b.ack('1', 'w1', 350, 'a');
    const h = b.end(1_500).build();
    for (const e of h.events) {
      if (e.type === 'nemesis' && e.phase === 'start') e.detail = { offsetMs: skewMs };
    }
    return h;
  }

  async function withDbSchedulerTerms(h: History): Promise<History> {
    const { dbSchedulerQueue } = await import('../../src/libraries/db-scheduler/adapter.js');
    const { record } = settleQueueTerms(dbSchedulerQueue, ONE_SECOND);
    return { ...h, header: { ...h.header, queueTerms: record } };
  }

  it('passes a deadline 80 ms short within one heartbeatInterval, and says so', async () => {
    const short = history(-80, -80);
    // Without the tolerance: ε of 5 ms, both writes off.
    const strict = check(leaseHonored, short);
    expect(strict.valid).toBe('invalid');
    expect(strict.counts).toMatchObject({ offGrants: 1, offExtensions: 1 });
    const result = check(leaseHonored, await withDbSchedulerTerms(short));
    expect(result.valid).toBe('valid');
    expect(result.counts).toMatchObject({
      offGrants: 0,
      offExtensions: 0,
      withinLeaseTolerance: 2,
    });
    expect(result.warnings).toEqual([
      expect.stringMatching(
        /^2 of 2 deadlines were off statement time \+ lease by more than ε \(5ms\), at most 80ms, within the lease tolerance of 167ms the queue's library declares: one heartbeatInterval: db-scheduler/,
      ),
    ]);
    // Nothing off by more than ε: no warning.
    expect(
      check(leaseHonored, await withDbSchedulerTerms(history(-3, -3))).warnings,
    ).toBeUndefined();
  });

  it('still flags a worker clock 10 minutes off, naming the tolerance it is beyond', async () => {
    const skewed = await withDbSchedulerTerms(history(600_000, 600_000, 600_000));
    const result = check(leaseHonored, skewed);
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ offGrants: 1, offExtensions: 1 });
    expect(result.evidence[0]?.message).toMatch(
      /600000ms later than statement time \+ durationMs \(1000ms\), beyond the lease tolerance of 167ms its library declares — lease arithmetic on w1's clock, which clock fault f1 set 600000ms ahead/,
    );
  });

  it('flags a deadline off by more than the tolerance', async () => {
    expect(check(leaseHonored, await withDbSchedulerTerms(history(-170))).valid).toBe('invalid');
  });

  it('names a statement held up after the clock was read as why a client-stamped deadline is short', async () => {
    // w1 read its clock at 100 and its extension reached the database at 700, behind a latency
    // fault: the deadline is 100 + 1 s, 600 ms short of statement time + lease.
    const b = new HistoryBuilder(['w1'], { lease: ONE_SECOND });
    b.enqueue('1', 0).fault('latency', 'w1', 90, 800);
    b.grant('1', 'w1', 'a', 50, 1_050).extend('1', 'w1', 700, 1_100);
    b.ack('1', 'w1', 900, 'a');
    const result = check(leaseHonored, await withDbSchedulerTerms(b.end(1_500).build()));
    expect(result.valid).toBe('invalid');
    expect(result.evidence[0]?.message).toMatch(
      /w1 stamped it from its own clock, read at about \+100ms, and the statement reached the database 600ms later, held up by latency f1 on w1: a deadline stamped before the statement is sent shrinks by its delay/,
    );
  });
});
