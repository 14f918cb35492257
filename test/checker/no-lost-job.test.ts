import { describe, expect, it } from 'vitest';
import { noLostJob } from '../../src/checker/no-lost-job.js';
import { cleanRecoveryAfterPause, cleanRun, neverCompleted } from './fixtures/anomalies.js';
import { HistoryBuilder, LEASE } from './fixtures/history-builder.js';
import { check } from './support.js';
import type { History, QueueTermsRecord } from '../../src/history/types.js';

function deadLettered(allowDeadLetter: boolean) {
  const b = new HistoryBuilder(['w1'], { allowDeadLetter });
  b.enqueue('1', 0).grant('1', 'w1', 'a', 0).unit('1', 'w1', 'a', 0, 1).fail('1', 'w1', 10, 'dead');
  return b.end(100).build();
}

// What a queue that declares `retries: false` records in the header.
const NO_RETRIES: QueueTermsRecord = {
  requestedLease: LEASE,
  notes: [],
  rescaled: [],
  extendsLease: true,
  retries: false,
};

/** A job failed on its first attempt (`state`), in a scenario failing `failAttempts` by plan. */
function failedFirstAttempt(failAttempts: number, terms?: QueueTermsRecord): History {
  const b = new HistoryBuilder(['w1']);
  b.enqueue('1', 0)
    .grant('1', 'w1', 'a', 0)
    .unit('1', 'w1', 'a', 0, 1)
    .fail('1', 'w1', 10, 'failed');
  const history = b.end(100).build();
  return {
    ...history,
    header: {
      ...history.header,
      ...(failAttempts > 0 && { failAttempts }),
      ...(terms !== undefined && { queueTerms: terms }),
    },
  };
}

describe('no-lost-job (I3)', () => {
  it('flags a job that was never completed', () => {
    const result = check(noLostJob, neverCompleted());
    expect(result.valid).toBe('invalid');
    expect(result.counts).toMatchObject({ jobs: 2, completed: 1, lost: 1 });
    const [evidence] = result.evidence;
    expect(evidence?.job).toBe('2');
    expect(evidence?.message).toMatch(
      /^never claimed \(state pending\) when the run ended at \+500ms/,
    );
    expect(evidence?.events.map((e) => e.role)).toEqual(['enqueued']);
  });

  it('says unknown for a cut history: the job may still have completed', () => {
    const result = check(noLostJob, neverCompleted({ cut: true }));
    expect(result.valid).toBe('unknown');
    expect(result.why).toMatch(/cut .*no end event/);
  });

  it('counts a dead-lettered job as done only where the scenario allows it', () => {
    expect(check(noLostJob, deadLettered(true)).valid).toBe('valid');
    const strict = check(noLostJob, deadLettered(false));
    expect(strict.valid).toBe('invalid');
    expect(strict.evidence[0]?.message).toMatch(
      /dead-lettered \(dead\), which this scenario does not allow/,
    );
  });

  it('says n/a, not invalid, when a queue without retries meets a scenario failing attempts', () => {
    // The wrong queue this must still catch: one that declares retries and fails the job for good.
    const retrying = check(noLostJob, failedFirstAttempt(1));
    expect(retrying.valid).toBe('invalid');
    expect(retrying.evidence[0]?.message).toMatch(/dead-lettered \(failed\)/);
    const none = check(noLostJob, failedFirstAttempt(1, NO_RETRIES));
    expect(none.valid).toBe('n/a');
    expect(none.why).toMatch(
      /^1 job\(s\) ended failed: scenario "fixture" fails the first 1 attempt\(s\) of every job and needs retries to complete them; queue "fixture" has none \(retries: false\)$/,
    );
    expect(none.counts).toMatchObject({ failedWithoutRetries: 1, lost: 0 });
    // Without planned failures, a failed job is a loss whatever the queue declares.
    expect(check(noLostJob, failedFirstAttempt(0, NO_RETRIES)).valid).toBe('invalid');
  });

  it('still flags a job lost some other way beside failed ones, when the queue has no retries', () => {
    const b = new HistoryBuilder(['w1']);
    b.enqueue('1', 0)
      .grant('1', 'w1', 'a', 0)
      .unit('1', 'w1', 'a', 0, 1)
      .fail('1', 'w1', 10, 'failed');
    b.enqueue('2', 20);
    const built = b.end(100).build();
    const history = {
      ...built,
      header: { ...built.header, failAttempts: 1, queueTerms: NO_RETRIES },
    };
    const result = check(noLostJob, history);
    expect(result.valid).toBe('invalid');
    expect(result.evidence.map((e) => e.job)).toEqual(['2']);
  });

  it('says unknown for a lost job while a fault never healed', () => {
    const b = new HistoryBuilder(['w1']);
    b.enqueue('1', 0).grant('1', 'w1', 'a', 0).fault('partition', 'w1', 5);
    const result = check(noLostJob, b.end(500, false).build());
    expect(result.valid).toBe('unknown');
    expect(result.why).toMatch(/partition@w1 had not healed/);
  });

  it('passes clean histories', () => {
    expect(check(noLostJob, cleanRun()).valid).toBe('valid');
    expect(check(noLostJob, cleanRecoveryAfterPause()).valid).toBe('valid');
  });
});
