import { describe, expect, it } from 'vitest';
import { boundedZombie } from '../../src/checker/bounded-zombie.js';
import { cleanRecoveryAfterPause, cleanRun, effectAfterLostClaim } from './fixtures/anomalies.js';
import { HistoryBuilder } from './fixtures/history-builder.js';
import { check, rel } from './support.js';

/** w1 loses its claim (expiry at +200, partitioned); an effect of unit 1 follows at `effectAt`. */
function zombie(effectAt: number, options: { lostAt?: number } = {}) {
  const b = new HistoryBuilder();
  b.enqueue('1', 0)
    .grant('1', 'w1', 'a', 0)
    .unit('1', 'w1', 'a', 0, 1, 20)
    .fault('partition', 'w1', 30, 500);
  if (options.lostAt !== undefined) b.say('w1', options.lostAt, 'lost', { job: '1', token: 'a' });
  b.unit('1', 'w1', 'a', 1, effectAt - 20, effectAt);
  b.grant('1', 'w2', 'b', 205).unit('1', 'w2', 'b', 0, 206, 225).ack('1', 'w2', 230, 'b');
  return b.end(600).build();
}

describe('bounded-zombie (I7)', () => {
  it('flags an effect 3 heartbeat periods after the lost claim', () => {
    const result = check(boundedZombie, effectAfterLostClaim());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ claimsLost: 1, zombies: 1, overBound: 1 });
    const [evidence] = result.evidence;
    expect(evidence?.job).toBe('1');
    expect(evidence?.claims.map((c) => [c.worker, c.holder, rel(c.expiredAt!)])).toEqual([
      ['w1', 'a', 250],
    ]);
    expect(evidence?.message).toMatch(
      /w1 did the effect of unit 1 at \+400ms, 150ms after its claim 1 was lost at \+250ms \(it expired\); the watchdog bound is 75ms/,
    );
    const effect = evidence?.events.find((e) => e.event.type === 'effect');
    expect(effect && rel(effect.t)).toBe(400);
    expect(evidence?.faults.map((f) => `${f.fault}@${f.target}`)).toEqual(['partition@w1']);
    expect(result.stats?.zombieWindowMs).toEqual({ count: 1, p50: 150, p99: 150, max: 150 });
  });

  it('warns, naming the handler, about effects after a cancellation the handler ignored', () => {
    // Lost at +210 (the worker's word), cancelled: the handler passed its next cancellation
    // point at +230 and went on; its effect at +400 is past the bound of 75 ms.
    const ignored = (cancelledAt?: number) => {
      const b = new HistoryBuilder();
      b.enqueue('1', 0).grant('1', 'w1', 'a', 0).unit('1', 'w1', 'a', 0, 1, 20);
      b.fault('partition', 'w1', 30, 500).say('w1', 210, 'lost', { job: '1', token: 'a' });
      if (cancelledAt !== undefined) {
        b.say('w1', cancelledAt, 'abort-ignored', { job: '1', token: 'a', unit: 1 });
      }
      b.unit('1', 'w1', 'a', 1, 380, 400);
      b.grant('1', 'w2', 'b', 205).unit('1', 'w2', 'b', 0, 206, 225).ack('1', 'w2', 230, 'b');
      return b.end(600).build();
    };
    const handlers = check(boundedZombie, ignored(230));
    expect(handlers.valid).toBe('valid');
    expect(handlers.counts).toMatchObject({ zombies: 1, overBound: 0, ignoredCancellation: 1 });
    expect(handlers.warnings?.[0]).toMatch(
      /ignored its cancellation: the handler broke its contract/,
    );
    expect(handlers.evidence[0]?.message).toMatch(
      /^the handler of job 1 on w1 ignored its cancellation: its worker cancelled it by \+230ms/,
    );
    // A worker that never cancelled it (no watchdog) is still judged.
    expect(check(boundedZombie, ignored()).valid).toBe('invalid');
    // Nor does a cancellation after the effect excuse it: the worker cancelled too late.
    expect(check(boundedZombie, ignored(450)).valid).toBe('invalid');
  });

  it('allows heartbeat + longest unit + ε after the loss', () => {
    // Expired at +200: the bound is 50 + 20 + 5 = 75 ms.
    expect(check(boundedZombie, zombie(274)).valid).toBe('valid');
    expect(check(boundedZombie, zombie(276)).valid).toBe('invalid');
  });

  it('counts from the worker’s own report of the loss when it comes first', () => {
    // Reported lost at +150: bound 75 + the clock uncertainty (0.5) from there.
    expect(check(boundedZombie, zombie(225, { lostAt: 150 })).valid).toBe('valid');
    expect(check(boundedZombie, zombie(226, { lostAt: 150 })).valid).toBe('invalid');
  });

  it('judges from the database’s expiry when the worker is told its extensions held', () => {
    // The wrong queue: `heartbeat-ignores-errors` — extensions that threw (a reset link) are
    // reported held, so the worker never reports the claim lost and its watchdog never fires.
    // The lease still expires on the database at +200, and the bound runs from there.
    const b = new HistoryBuilder();
    b.enqueue('1', 0).grant('1', 'w1', 'a', 0).fault('partition', 'w1', 30, 500);
    for (let t = 50; t <= 450; t += 50) {
      b.say('w1', t, 'extend', { phase: 'complete', outcome: 'ok', job: '1', token: 'a' });
    }
    for (let unit = 0; unit < 10; unit += 1)
      b.unit('1', 'w1', 'a', unit, unit * 45, unit * 45 + 20);
    b.grant('1', 'w2', 'b', 505).unit('1', 'w2', 'b', 0, 506, 525).ack('1', 'w2', 530, 'b');
    const result = check(boundedZombie, b.end(600).build());
    expect(result.valid).toBe('invalid');
    expect(result.evidence[0]?.message).toMatch(
      /after its claim 1 was lost at \+200ms \(it expired\)/,
    );
    // The same run with the handler stopped within the bound is valid.
    const bounded = new HistoryBuilder();
    bounded.enqueue('1', 0).grant('1', 'w1', 'a', 0).fault('partition', 'w1', 30, 500);
    for (let unit = 0; unit < 6; unit += 1) {
      bounded.unit('1', 'w1', 'a', unit, unit * 45, unit * 45 + 20);
    }
    bounded.grant('1', 'w2', 'b', 505).unit('1', 'w2', 'b', 0, 506, 525).ack('1', 'w2', 530, 'b');
    expect(check(boundedZombie, bounded.end(600).build()).valid).toBe('valid');
  });

  it('excuses the time a paused worker could not act', () => {
    const result = check(boundedZombie, cleanRecoveryAfterPause());
    expect(result.valid).toBe('valid');
    expect(result.stats?.zombieWindowMs).toMatchObject({ count: 1, max: 300.05 });
  });

  it('says unknown when a zombie effect has no plan to bound it by', () => {
    const history = zombie(400);
    history.events = history.events.filter((e) => e.type !== 'job');
    const result = check(boundedZombie, history);
    expect(result.valid).toBe('unknown');
    expect(result.why).toMatch(/no handler plan/);
  });

  it('passes a clean run', () => {
    expect(check(boundedZombie, cleanRun()).valid).toBe('valid');
  });
});
