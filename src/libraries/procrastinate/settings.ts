/**
 * procrastinate's settings by its own names, and the one its lease is.
 *
 * procrastinate keeps no lease on a job. A worker heartbeats its own row
 * (`update_heartbeat_interval`); a `doing` job of a worker whose heartbeat is older than
 * `seconds_since_heartbeat` is *stalled*, and the only thing that gives it to another worker is the
 * user's periodic task of procrastinate's docs, `retry_stalled_jobs`, which calls
 * `get_stalled_jobs(seconds_since_heartbeat=…)` and `retry_job` for each. So the scenario's lease
 * is that horizon (30 s by default), and k = lease ÷ 30 s compresses every other duration —
 * the recipe's cron period (`*\/10 * * * *`) included. Defaults and lines are procrastinate
 * 3.10.0's, read in the installed wheel.
 */
import type { LibrarySettingsSpec } from '../../queue/library-settings.js';

/** The name of the recipe's cron period among the settings. */
export const RECIPE_CRON = 'retry_stalled_jobs cron';

const RECIPE_DOCS =
  'docs: howto/production/retry_stalled_jobs (https://procrastinate.readthedocs.io/en/stable/' +
  'howto/production/retry_stalled_jobs.html)';

// What a polling loop in a Python worker can honour on this 2-core machine, beside other
// workers, Toxiproxy and PostgreSQL: a loop tighter than this measures the machine, not the
// library.
const LOOP_FLOOR_MS = 10;
const loopFloor = (drives: string) => ({
  ms: LOOP_FLOOR_MS,
  why: `a Python loop faster than every ${String(LOOP_FLOOR_MS)} ms loads the machine the run measures`,
  drives,
});

/** procrastinate 3.10's lease-relevant settings and timing constants. */
export const PROCRASTINATE_SETTINGS: LibrarySettingsSpec = {
  library: 'procrastinate',
  anchor: 'seconds_since_heartbeat',
  settings: [
    {
      name: 'seconds_since_heartbeat',
      kind: 'duration',
      default: 30_000,
      where: `procrastinate/manager.py:228 (JobManager.get_stalled_jobs), called by the recipe; ${RECIPE_DOCS}`,
      relation:
        'the docs: "If you change the seconds_since_heartbeat parameter, make sure to also check ' +
        'the update_heartbeat_interval and stalled_worker_timeout parameters of the worker and ' +
        'adjust them accordingly"',
    },
    {
      name: 'update_heartbeat_interval',
      kind: 'duration',
      default: 10_000,
      where: 'procrastinate/worker.py:48 (Worker), the loop at worker.py:481-490',
      floor: loopFloor('I9 and I7 (a heartbeat longer than its compressed value)'),
      relation: 'a third of the stalled horizon by default (10 s against 30 s)',
    },
    {
      name: 'stalled_worker_timeout',
      kind: 'duration',
      default: 30_000,
      where:
        'procrastinate/worker.py:49; a starting worker deletes the rows of workers silent that ' +
        'long (worker.py:445-448), which clears worker_id on their doing jobs',
    },
    {
      name: 'fetch_job_polling_interval',
      kind: 'duration',
      default: 5_000,
      where:
        'procrastinate/worker.py:29 (FETCH_JOB_POLLING_INTERVAL); LISTEN/NOTIFY wakes it sooner',
      floor: loopFloor('I8 (a free worker takes a retried job within one poll)'),
    },
    {
      name: 'abort_job_polling_interval',
      kind: 'duration',
      default: 5_000,
      where: 'procrastinate/worker.py:30 (ABORT_JOB_POLLING_INTERVAL)',
      floor: loopFloor('nothing a scenario judges (no scenario asks procrastinate to abort a job)'),
    },
    {
      name: RECIPE_CRON,
      kind: 'duration',
      default: 600_000,
      where: `the recipe's @app.periodic(cron="*/10 * * * *"), ${RECIPE_DOCS}`,
      floor: {
        ms: 1_000,
        why: "procrastinate's cron counts whole seconds (its optional sixth column)",
        drives: 'I8 (a stalled job waits up to one period past the horizon)',
      },
      relation:
        'run as the cron procrastinate can state whose longest gap between ticks is this period ' +
        '(seconds in the sixth column below a minute)',
    },
    {
      name: 'max_delay',
      kind: 'duration',
      default: 600_000,
      where:
        'procrastinate/periodic.py:22 (MAX_DELAY), App(periodic_defaults={"max_delay": …}): a ' +
        'starting worker defers a tick missed no longer ago than this',
    },
    {
      name: 'MARGIN',
      kind: 'duration',
      default: 500,
      where: 'procrastinate/periodic.py:25: the periodic deferrer oversleeps each tick by it',
      constant: true,
    },
    {
      name: 'LISTEN_TIMEOUT',
      kind: 'duration',
      default: 30_000,
      where:
        'procrastinate/connector.py:13: the LISTEN connection is checked (SELECT 1) after that ' +
        'long without a notification',
      constant: true,
      floor: loopFloor('nothing a scenario judges (polling finds what a lost notification missed)'),
    },
    {
      name: 'CANCEL_TIMEOUT',
      kind: 'duration',
      default: 1_000,
      where:
        'procrastinate/utils.py:222: a stopping worker waits that long per round for its side tasks',
      constant: true,
    },
    {
      name: 'shutdown_graceful_timeout',
      kind: 'duration',
      default: Infinity,
      where:
        'procrastinate/worker.py:43, None by default: a stopping worker waits for its running ' +
        'jobs without limit (worker.py:569-571)',
    },
    {
      name: 'concurrency',
      kind: 'count',
      default: 1,
      where: 'procrastinate/worker.py:28 (WORKER_CONCURRENCY)',
    },
  ],
};

/** The cron a run defers the recipe with, and the longest it waits between two ticks. */
export interface RecipeCron {
  /** procrastinate's cron: five columns, or six with seconds last. */
  cron: string;
  /** The longest gap between two ticks, ms. */
  maxGapMs: number;
}

/**
 * The cron procrastinate can state for a period of `periodMs`: the period in whole seconds below
 * a minute (`* * * * * *\/s`, procrastinate's sixth column), in whole minutes below an hour
 * (`*\/m * * * *`; the docs' `*\/10 * * * *` at k = 1), else in whole hours. A step that does not
 * divide its column ticks once sooner at the column's turn (`*\/16` seconds: :00 :16 :32 :48),
 * never later: the longest gap is the step. Mirrored by `recipe_cron` in
 * `leaseproof_client/targets/procrastinate_native.py`.
 */
export function recipeCron(periodMs: number): RecipeCron {
  const seconds = Math.max(1, Math.round(periodMs / 1_000));
  if (seconds < 60) return { cron: `* * * * * */${String(seconds)}`, maxGapMs: seconds * 1_000 };
  const minutes = Math.max(1, Math.round(seconds / 60));
  if (minutes < 60) return { cron: `*/${String(minutes)} * * * *`, maxGapMs: minutes * 60_000 };
  const hours = Math.min(23, Math.max(1, Math.round(minutes / 60)));
  return { cron: `0 */${String(hours)} * * *`, maxGapMs: hours * 3_600_000 };
}
