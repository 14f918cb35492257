import { describe, expect, it } from 'vitest';
import { noLostJob } from '../../src/checker/no-lost-job.js';
import { cleanRecoveryAfterPause, cleanRun, neverCompleted } from './fixtures/anomalies.js';
import { HistoryBuilder } from './fixtures/history-builder.js';
import { check } from './support.js';

function deadLettered(allowDeadLetter: boolean) {
  const b = new HistoryBuilder(['w1'], { allowDeadLetter });
  b.enqueue('1', 0).grant('1', 'w1', 'a', 0).unit('1', 'w1', 'a', 0, 1).fail('1', 'w1', 10, 'dead');
  return b.end(100).build();
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
