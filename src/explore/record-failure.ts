/**
 * Writes down a shrunk failure once its replays are in: the schedule as a scenario file, and
 * beside it the first failing run's report folder, so a failure that does not reproduce still
 * has its evidence. An unconfirmed one goes to `unconfirmed/` under the same folder, out of the
 * way of a CI step that replays every file in it.
 */
import { basename, join } from 'node:path';
import { writeRunReport } from '../report/write-run-report.js';
import type { ConfirmedCounterexample } from './confirm-counterexample.js';
import type { RoundFailure } from './search-round.js';
import { writeCounterexample, type CounterexampleOrigin } from './write-counterexample.js';
import type { FoundIn } from './types.js';

/** Where the failure's files went. */
export interface RecordedFailure {
  file: string;
  firstFailureReport: string;
}

/** What `recordFailure` writes. */
export interface FailureToRecord {
  queue: string;
  laneSeed: number;
  failure: RoundFailure;
  violated: string[];
  confirmed: ConfirmedCounterexample;
  unconfirmed: boolean;
  /** When the search started (the report's start). */
  startedAt: Date;
  /** Where the first failing run ran (its replays were real either way). */
  foundIn: FoundIn;
}

/** Writes the file and the first failing run's report under `outDir` (or its `unconfirmed/`). */
export async function recordFailure(
  outDir: string,
  record: FailureToRecord,
): Promise<RecordedFailure> {
  const { confirmed, failure } = record;
  // An unconfirmed failure is written as it failed (the minimal schedule), with both replays said.
  const file = record.unconfirmed
    ? await writeCounterexample(join(outDir, 'unconfirmed'), failure.minimal, {
        ...origin(record),
        note:
          found(record) +
          `it reproduced on none of ${confirmed.replays} ${replays(record)}` +
          (confirmed.stretched
            ? `, nor did its faults held for two leases with a job per worker on ${confirmed.replays} more.`
            : '.'),
      })
    : await writeCounterexample(outDir, confirmed.scenario, {
        ...origin(record),
        note:
          `${confirmed.stretched ? 'Stretched from the minimal schedule so that it reproduces: its faults are held for at least two leases and every worker has a job (shrinking stops at the edge of the failure, a fault of one lease, fewer jobs than workers); ' : ''}` +
          found(record) +
          `it reproduced on ${confirmed.reproduced} of ${confirmed.replays} ${replays(record)}.`,
      });
  const firstFailureReport = file.replace(/\.ya?ml$/, '') + '.first-failure';
  await writeRunReport(firstFailureReport, {
    id: basename(firstFailureReport),
    startedAt: record.startedAt,
    finishedAt: new Date(),
    scenarios: [failure.firstFailure],
  });
  return { file, firstFailureReport };
}

// Where the failure came from, said first when it was the simulation.
function found(record: FailureToRecord): string {
  return record.foundIn === 'simulation'
    ? `found in simulated time on PGlite (the queue's own SQL, seed ${record.laneSeed}), then replayed for real; `
    : '';
}

function replays(record: FailureToRecord): string {
  return record.foundIn === 'simulation'
    ? 'real replays (PostgreSQL, Toxiproxy, worker processes)'
    : 'replays';
}

function origin(record: FailureToRecord): CounterexampleOrigin {
  return {
    queue: record.queue,
    seed: record.laneSeed,
    path: record.failure.path,
    violated: record.violated,
    unconfirmed: record.unconfirmed,
  };
}
