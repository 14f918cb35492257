// What a confirmation measures on a real run's history: executions from the database's grants
// (a SIGKILL can cut the worker's own reports, and a crash in the first unit leaves no effect
// row), and whether the crash struck a held job.
import { describe, expect, it } from 'vitest';
import { measure } from '../../src/tune/confirm.js';
import { HistoryBuilder } from '../checker/fixtures/history-builder.js';

describe('measure (tune --confirm)', () => {
  it('counts a job granted twice as executed twice, though the crashed worker wrote no effect and sent no report', () => {
    const history = new HistoryBuilder()
      .enqueue('j1', 0)
      .enqueue('j2', 0)
      // w1 is killed in its first unit: no effect row, no unit report, but the job was its.
      .grant('j1', 'w1', 'a', 10)
      .fault('crash', 'w1', 100, 600)
      .grant('j1', 'w2', 'b', 1_020)
      .unit('j1', 'w2', 'b', 0, 1_020, 1_070)
      .ack('j1', 'w2', 1_080)
      .grant('j2', 'w2', 'c', 1_100)
      .unit('j2', 'w2', 'c', 0, 1_100, 1_150)
      .ack('j2', 'w2', 1_160)
      .end(1_200)
      .build();
    const figures = measure(history);
    expect(figures.duplicatesPer1000).toBe(500);
    expect(figures.stallP50Ms).toBeCloseTo(920, 0);
    expect(figures.struckHeldJob).toBe(true);
  });

  it('says when the crash found the worker holding nothing, and counts no duplicate', () => {
    const history = new HistoryBuilder()
      .enqueue('j1', 0)
      .fault('crash', 'w1', 5, 500)
      .grant('j1', 'w2', 'b', 20)
      .unit('j1', 'w2', 'b', 0, 20, 70)
      .ack('j1', 'w2', 80)
      .end(600)
      .build();
    const figures = measure(history);
    expect(figures.duplicatesPer1000).toBe(0);
    expect(figures.stallP50Ms).toBeNaN();
    expect(figures.struckHeldJob).toBe(false);
  });
});
