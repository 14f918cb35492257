import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkHistory } from '../../src/checker/index.js';
import type { CompositeResult } from '../../src/checker/types.js';
import { EmbeddedEnvironmentProvider } from '../../src/env/embedded-env.js';
import type { StartedEnvironment } from '../../src/env/types.js';
import type { RunPlan } from '../../src/scenario/execute-run.js';
import { runAndCheck } from '../../src/scenario/run-and-check.js';
import * as runs from './runs.js';

let env: StartedEnvironment;
beforeAll(async () => {
  env = await new EmbeddedEnvironmentProvider().start();
});
afterAll(async () => {
  await env?.stop();
});

/** Each checker's verdict by name, plus the composite, for readable assertions. */
function verdicts(result: CompositeResult): Record<string, string> {
  return Object.fromEntries(result.results.map((r) => [r.checker, r.valid]));
}

/** Runs a plan for real and checks its history; a failure shows the whole verdict. */
async function runAndJudge(plan: RunPlan, strictCauses = false) {
  const { history, drained, result } = await runAndCheck(env, plan, {
    checkOptions: { strictCauses },
  });
  return { history, drained, result, byName: verdicts(result) };
}

const ALL_VALID = {
  'no-stale-ack': 'valid',
  'single-completion': 'valid',
  'no-lost-job': 'valid',
  'exclusive-claim': 'valid',
  'at-least-once-bound': 'valid',
  'lease-honored': 'valid',
  'bounded-zombie': 'valid',
  'timely-recovery': 'valid',
  'explained-expiry': 'valid',
};

describe('real runs, judged by every checker', () => {
  it('the reference passes every checker under pauses, partitions and a skewed clock (strict causes)', async () => {
    const { byName, drained, result, history } = await runAndJudge(
      runs.mixedFaults('reference'),
      true,
    );
    expect(drained).toBe(true);
    expect(
      byName,
      JSON.stringify(
        result.results.filter((r) => r.valid !== 'valid'),
        null,
        1,
      ),
    ).toEqual(ALL_VALID);
    // The faults had their effect: claims expired, every expiry explained by one of them.
    const expiry = result.results.find((r) => r.checker === 'explained-expiry');
    expect(expiry?.counts.expired).toBeGreaterThanOrEqual(1);
    expect(history.events.filter((e) => e.type === 'nemesis')).toHaveLength(6);
  });

  it('unconditional-ack is flagged by no-stale-ack (and the reference is not, on the same run)', async () => {
    const bad = await runAndJudge(runs.pausePastLease('unconditional-ack'));
    expect(bad.byName['no-stale-ack']).toBe('invalid');
    const evidence = bad.result.results.find((r) => r.checker === 'no-stale-ack')?.evidence[0];
    expect(evidence?.job).toBeDefined();
    const good = await runAndJudge(runs.pausePastLease('reference'));
    expect(good.byName['no-stale-ack']).toBe('valid');
  });

  it('worker-clock-lease is flagged by lease-honored (and the reference is not)', async () => {
    const bad = await runAndJudge(runs.skewedClock('worker-clock-lease'));
    expect(bad.byName['lease-honored']).toBe('invalid');
    const good = await runAndJudge(runs.skewedClock('reference'));
    expect(good.byName).toEqual(ALL_VALID);
  });

  it('main-thread-heartbeat is flagged by explained-expiry under an event-loop stall (and the reference is not)', async () => {
    const bad = await runAndJudge(runs.blockedEventLoop('main-thread-heartbeat'), true);
    expect(bad.byName['explained-expiry']).toBe('invalid');
    // By default an unexplained expiry is a warning, not a violation.
    expect(
      checkHistory(bad.history).results.find((r) => r.checker === 'explained-expiry')?.warnings
        ?.length,
    ).toBeGreaterThan(0);
    const good = await runAndJudge(runs.blockedEventLoop('reference'), true);
    expect(good.byName['explained-expiry']).toBe('valid');
  });

  it('no-watchdog is flagged by bounded-zombie (and the reference is not)', async () => {
    const bad = await runAndJudge(runs.partitionMidJob('no-watchdog'));
    expect(bad.byName['bounded-zombie']).toBe('invalid');
    const good = await runAndJudge(runs.partitionMidJob('reference'));
    expect(good.byName['bounded-zombie']).toBe('valid');
  });
});
