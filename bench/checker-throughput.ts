import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { runChecker } from '../src/checker/compose.js';
import { ALL_CHECKERS, checkHistory } from '../src/checker/index.js';
import { resolveOptions } from '../src/checker/options.js';
import { simulateHistory } from '../src/sim/simulate-history.js';
import { deriveHistory } from '../src/history/derive.js';
import type { History } from '../src/history/types.js';
import { median, report } from './stats.js';

const JOBS = 56_000;
const RUNS = 5;

/**
 * Checker throughput: derive + all nine checkers over a generated history of ~1,000,000 events
 * (the correct-queue model: 8 workers, 56,000 jobs of 2–6 units, 200 ms lease, 50 ms
 * heartbeat, random pauses, partitions, crashes, stalls and database restarts), in events/s
 * (median of 5 runs, each on a fresh History object so nothing cached is reused), and the
 * memory it takes beyond the history itself, in bytes per event. Targets: >= 1,000,000 events/s,
 * <= 200 bytes/event peak.
 *
 * Memory method: after the history is generated, a full GC (V8's `gc`, exposed at run time)
 * gives the baseline heap (`heapUsed + arrayBuffers`). Then derive and each checker run one
 * after another with no forced GC, and the heap is sampled after each: the largest sample minus
 * the baseline is the peak — live data plus garbage not yet collected at that moment, so an
 * upper estimate at the sample points (a transient peak inside one checker is not seen). After
 * the last checker a full GC again gives what is retained (the derived view and the verdicts).
 */
export async function benchCheckerThroughput(): Promise<void> {
  const gc = exposeGc();
  gc();
  const before = heap();
  const history = simulateHistory({
    seed: 42,
    workers: 8,
    jobs: JOBS,
    faults: 400,
    lease: { durationMs: 200, heartbeatMs: 50, extendByMs: 200, pollMs: 10 },
    units: { min: 2, max: 6 },
    unitMs: { min: 5, max: 30 },
  });
  const events = history.events.length;

  const seconds: number[] = [];
  let verdict = '';
  for (let run = 0; run < RUNS; run += 1) {
    const fresh: History = { header: history.header, events: history.events };
    const started = performance.now();
    verdict = checkHistory(fresh).valid;
    seconds.push((performance.now() - started) / 1000);
  }

  gc();
  const baseline = heap();
  const fresh: History = { header: history.header, events: history.events };
  const options = resolveOptions();
  deriveHistory(fresh);
  let peak = heap();
  const results = [];
  for (const checker of ALL_CHECKERS) {
    results.push(runChecker(checker, fresh, options));
    peak = Math.max(peak, heap());
  }
  gc();
  const retained = heap() - baseline;
  await Promise.resolve(results.length);

  report({
    metric: 'checker_throughput',
    value: Math.round(events / median(seconds)),
    unit: 'events/s',
    events,
    checkers: ALL_CHECKERS.length,
    verdict,
    runs: seconds.map((s) => Math.round(s * 1000)),
    target: '>= 1000000',
  });
  report({
    metric: 'checker_peak_memory',
    value: Math.round((peak - baseline) / events),
    unit: 'bytes/event',
    peakMB: Math.round((peak - baseline) / 1e6),
    retainedBytesPerEvent: Math.round(retained / events),
    note: 'heap above the loaded history, sampled after derive and after each checker',
    target: '<= 200',
  });
  report({
    metric: 'history_in_memory',
    value: Math.round((baseline - before) / events),
    unit: 'bytes/event',
    note: 'the parsed history itself (input, not counted above), for scale',
  });
}

function heap(): number {
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
}

/** V8's `gc`, exposed at run time, so that `npm run bench` needs no extra node flag. */
function exposeGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}
