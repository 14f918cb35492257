import { describe, expect, it } from 'vitest';
import { boundedZombie } from '../../src/checker/bounded-zombie.js';
import { explainedExpiry } from '../../src/checker/explained-expiry.js';
import { noStaleAck } from '../../src/checker/no-stale-ack.js';
import { timelyRecovery } from '../../src/checker/timely-recovery.js';
import type { History } from '../../src/history/types.js';
import {
  effectAfterLostClaim,
  giveUpBeforeExpiry,
  expiryUnderStall,
  expiryWithoutFault,
  lateReclaimWhileWorkerFree,
  staleAckOverReclaim,
} from './fixtures/anomalies.js';
import { T0 } from './fixtures/history-builder.js';
import { check } from './support.js';

/** `history` with a probe's `starved` event added: `worker`'s `thread` starved `ms` until `end`. */
function starved(
  history: History,
  worker: string,
  end: number,
  ms: number,
  thread: 'main' | 'heartbeat' = 'heartbeat',
): History {
  const event = {
    type: 'worker' as const,
    t: T0 + end,
    worker,
    kind: 'starved',
    thread,
    ms,
    detail: `${thread} thread ran ${ms}ms late`,
  };
  const events = [...history.events, event].sort((a, b) => a.t - b.t);
  return { header: history.header, events };
}

describe('harness starvation', () => {
  describe('explained-expiry (I9, strict causes)', () => {
    // The claim of w1 expires at +200 with no fault: it had 200 − 0 − 50 = 150 ms of slack.
    const strict = { strictCauses: true };

    it('is unknown when the holder starved for at least half the slack, and names the thread', () => {
      const result = check(explainedExpiry, starved(expiryWithoutFault(), 'w1', 190, 120), strict);
      expect(result.valid).toBe('unknown');
      expect(result.counts).toMatchObject({ expired: 1, unexplained: 0, starved: 1 });
      expect(result.why).toMatch(
        /^harness starved: worker w1's heartbeat thread ran 120 ms late at \+190ms, which accounts for 120ms of the 149.95ms the heartbeat had to miss for claim 1 of w1 to expire: not judged$/,
      );
    });

    it('stays invalid when the starvation is too short to account for the expiry', () => {
      const result = check(explainedExpiry, starved(expiryWithoutFault(), 'w1', 190, 40), strict);
      expect(result.valid).toBe('invalid');
      expect(result.counts).toMatchObject({ unexplained: 1, starved: 0 });
    });

    it('is unknown when the holder gave the claim up after its heartbeat starved in the lease before', () => {
      expect(check(explainedExpiry, giveUpBeforeExpiry(), strict).valid).toBe('invalid');
      const result = check(explainedExpiry, starved(giveUpBeforeExpiry(), 'w1', 190, 120), strict);
      expect(result.valid).toBe('unknown');
      expect(result.counts).toMatchObject({ expired: 1, unexplained: 0, starved: 1 });
      expect(result.why).toMatch(
        /harness starved: worker w1's heartbeat thread ran 120 ms late at \+190ms, which accounts for 120ms of the 150ms its heartbeat had to miss before w1's watchdog gave claim 1 up, at \+195ms/,
      );
    });

    it('stays invalid when the give-up came after little starvation, or the expiry came first', () => {
      expect(
        check(explainedExpiry, starved(giveUpBeforeExpiry(), 'w1', 190, 40), strict).valid,
      ).toBe('invalid');
      // Starved, but it said `lost` only after the database expired the claim: the usual
      // window (last confirmation to expiry) applies, and holds too little starvation.
      const late = starved(giveUpBeforeExpiry(), 'w1', 190, 120);
      const lost = late.events.find((e) => e.type === 'worker' && e.kind === 'lost')!;
      lost.t = T0 + 381;
      late.events.sort((a, b) => a.t - b.t);
      expect(check(explainedExpiry, late, strict).valid).toBe('invalid');
    });

    it('stays invalid when another worker starved, not the holder', () => {
      const result = check(explainedExpiry, starved(expiryWithoutFault(), 'w2', 190, 150), strict);
      expect(result.valid).toBe('invalid');
    });

    it("stays invalid when the main thread's starvation lies inside a stall on the holder", () => {
      // The stall is the scenario's own fault: its verdict (a heartbeat that a blocked event
      // loop stops) must stand. The main thread's starvation in it is the stall's doing.
      const history = starved(expiryUnderStall(), 'w1', 190, 150, 'main');
      expect(check(explainedExpiry, history, strict).valid).toBe('invalid');
    });

    it('is unknown when the heartbeat thread starved inside a stall on the holder', () => {
      // A stall blocks the main thread only; a heartbeat thread that waited for a CPU beside the
      // busy loop was starved by the machine, which a correct queue cannot help.
      const result = check(explainedExpiry, starved(expiryUnderStall(), 'w1', 190, 150), strict);
      expect(result.valid).toBe('unknown');
    });

    it('only warns without strict causes', () => {
      const result = check(explainedExpiry, starved(expiryWithoutFault(), 'w1', 190, 120));
      expect(result.valid).toBe('valid');
      expect(result.warnings?.some((w) => w.startsWith('harness starved: worker w1'))).toBe(true);
    });
  });

  describe('bounded-zombie (I7)', () => {
    // w1's effect at +400 comes 150 ms after its claim was lost at +250; the bound is 75 ms.
    it('is unknown when the holder starved for as long as the overrun', () => {
      const result = check(boundedZombie, starved(effectAfterLostClaim(), 'w1', 390, 80, 'main'));
      expect(result.valid).toBe('unknown');
      expect(result.counts).toMatchObject({ overBound: 0, starved: 1 });
      expect(result.why).toMatch(
        /harness starved: worker w1's main thread ran 80 ms late at \+390ms, which accounts for the 75ms over the watchdog bound: not judged/,
      );
    });

    it('stays invalid when the overrun is longer than the starvation', () => {
      const result = check(boundedZombie, starved(effectAfterLostClaim(), 'w1', 390, 30, 'main'));
      expect(result.valid).toBe('invalid');
      expect(result.counts).toMatchObject({ overBound: 1, starved: 0 });
    });

    it('does not count starvation before the loss', () => {
      const result = check(boundedZombie, starved(effectAfterLostClaim(), 'w1', 240, 200));
      expect(result.valid).toBe('invalid');
    });
  });

  describe('timely-recovery (I8)', () => {
    // w1 crashes; its claim expires at +200; w2, free all along, re-claims only at +800.
    it('is unknown when the free worker starved for nearly all of its free spell', () => {
      const result = check(
        timelyRecovery,
        starved(lateReclaimWhileWorkerFree(), 'w2', 790, 590, 'main'),
      );
      expect(result.valid).toBe('unknown');
      expect(result.counts).toMatchObject({ slow: 0, starved: 1 });
      expect(result.why).toMatch(/^harness starved: worker w2's main thread ran 590 ms late/);
    });

    it('stays invalid when the spell minus the starvation is still longer than a poll', () => {
      const result = check(
        timelyRecovery,
        starved(lateReclaimWhileWorkerFree(), 'w2', 790, 300, 'main'),
      );
      expect(result.valid).toBe('invalid');
      expect(result.counts).toMatchObject({ slow: 1, starved: 0 });
    });
  });

  it('leaves safety verdicts alone: a stale ack is invalid however starved its worker was', () => {
    const history = staleAckOverReclaim();
    const worker = history.header.workers[0]!;
    const result = check(noStaleAck, starved(history, worker, 300, 10_000, 'main'));
    expect(result.valid).toBe('invalid');
  });
});
