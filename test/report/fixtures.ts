// Runs for report tests, built from the checker fixtures: each is a real checker verdict on a
// hand-written history, so the reports render what the checkers actually produce.
import { checkHistory } from '../../src/checker/index.js';
import type { History } from '../../src/history/types.js';
import type { RunReport, ScenarioRun } from '../../src/report/types.js';
import {
  cleanRun,
  expiryWithoutFault,
  neverCompleted,
  staleAckAfterReclaimBothComplete,
} from '../checker/fixtures/anomalies.js';
import { HistoryBuilder } from '../checker/fixtures/history-builder.js';

/** Every character the formats must escape, a control character XML cannot carry, and a script end. */
export const ODD = `<&"'> \u0001 </script>`;

/** The same history under another scenario name and queue. */
export function renamed(history: History, scenario: string, queue = history.header.queue): History {
  return { ...history, header: { ...history.header, scenario, queue } };
}

/** A scenario run with the checkers' real verdict. */
export function scenario(history: History): ScenarioRun {
  return { history, result: checkHistory(history) };
}

/**
 * A stale ack with odd strings everywhere: the job id, the scenario's name, a worker's error
 * detail. w1 is paused past its lease, w2 re-claims, w1's late ack commits over it and w2's own
 * ack is rejected; a database restart spans every lane.
 */
export function oddStaleAck(): History {
  const job = `job${ODD}`;
  const b = new HistoryBuilder(['w1', 'w2']);
  b.enqueue(job, 0).grant(job, 'w1', 'a', 0).unit(job, 'w1', 'a', 0, 1, 15);
  b.fault('pause', 'w1', 20, 240);
  b.grant(job, 'w2', 'b', 210).unit(job, 'w2', 'b', 0, 211, 220);
  b.extend(job, 'w2', 230);
  b.ack(job, 'w1', 245, 'a');
  b.fault('db-restart', 'db', 280, 290);
  b.say('w2', 300, 'ack', {
    phase: 'complete',
    outcome: 'fail',
    job,
    token: 'b',
    detail: `rejected ${ODD}`,
  });
  return renamed(b.end(400).build(), `odd ${ODD}`, 'unconditional-ack');
}

/** A run of four scenarios: invalid (I1 + I2), valid, valid with a warning, unknown (cut). */
export function mixedRun(): RunReport {
  return {
    id: '20250101t000000_abcdef',
    startedAt: new Date('2025-01-01T00:00:00.000Z'),
    finishedAt: new Date('2025-01-01T00:00:42.500Z'),
    environment: { provider: 'embedded', postgres: '18.4' },
    scenarios: [
      scenario(
        renamed(staleAckAfterReclaimBothComplete(), 'pause-past-lease', 'unconditional-ack'),
      ),
      scenario(renamed(cleanRun(), 'clean', 'reference')),
      scenario(renamed(expiryWithoutFault(), 'lease-too-short', 'reference')),
      scenario(renamed(neverCompleted({ cut: true }), 'cut-short', 'reference')),
    ],
  };
}
