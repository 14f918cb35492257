/**
 * graphile-worker's settings and hard-coded durations, by its own names, and the one its lease is.
 *
 * graphile-worker's lease is a lock with no expiry of its own: a locked job is never fetched, and
 * `resetLockedAt` frees a lock older than `interval '4 hours'`, a constant no user can set
 * (graphile/worker#198 asks for it). That lock timeout is the anchor: k = the scenario's lease ÷
 * 4 h (1/14400 for a 1 s lease), and every other duration — the poll, the 8–10 minute reset timer,
 * the graceful shutdown's abort, the retry backoff's unit — is its value × k, so a run keeps
 * graphile-worker's proportions: the reset timer runs 24 times a lock timeout, a retry comes
 * seconds after a failure, not hours. The poll alone is held at a floor (below).
 *
 * Where (`where`): the files of the pinned release that leaseproof runs, in its `dist/`.
 */
import type { LibrarySettingsSpec } from '../../queue/library-settings.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

/** graphile-worker's hard-coded lock timeout (the anchor), as `resetLockedAt` has it. */
export const GRAPHILE_LOCK_TIMEOUT_MS = 4 * 60 * MINUTE;

/**
 * The least poll a run uses (ms). A poll is a database round-trip through the worker's proxy, not
 * a timer: at 2 s × 1/14400 = 0.14 ms each of a run's workers would send thousands of fetches a
 * second, a busy loop that takes both cores of the machine from the handlers it is meant to time.
 * 50 ms is the curated scenarios' own poll, and the time leaseproof's parallelism lets a worker
 * wait for a CPU before it calls the machine busy: a poll shorter than that is not one a worker
 * on a loaded 2-core machine can keep.
 */
export const GRAPHILE_POLL_FLOOR_MS = 50;

/** Where a release of graphile-worker defines each setting (its `dist/` files and lines). */
export type GraphileSources = Readonly<Record<GraphileSetting, string>>;

/** graphile-worker's settings by name. */
export type GraphileSetting =
  | 'lockTimeout'
  | 'pollInterval'
  | 'minResetLockedInterval'
  | 'maxResetLockedInterval'
  | 'gracefulShutdownAbortTimeout'
  | 'retryDelayUnit'
  | 'concurrency';

/** Where graphile-worker 0.17.3 defines them. */
export const GRAPHILE_17_SOURCES: GraphileSources = {
  lockTimeout: "dist/sql/resetLockedAt.js:12,16, `interval '4 hours'`",
  pollInterval: 'dist/config.js:18',
  minResetLockedInterval: 'dist/config.js:28; the timer dist/main.js:204-205',
  maxResetLockedInterval: 'dist/config.js:29; refused below the min at dist/lib.js:154-158',
  gracefulShutdownAbortTimeout: 'dist/config.js:30; the abort dist/main.js:663-666',
  retryDelayUnit: "dist/sql/failJobs.js:23,52,79, `exp(least(attempts, 10)) * interval '1 second'`",
  concurrency: 'dist/config.js:20, concurrentJobs',
};

/** Where graphile-worker 0.18.0 defines them: the same values (versions survey §2, §4.2). */
export const GRAPHILE_18_SOURCES: GraphileSources = {
  lockTimeout: "dist/sql/resetLockedAt.js:9,13, `interval '4 hours'`",
  pollInterval: 'dist/config.js:43',
  minResetLockedInterval: 'dist/config.js:51; the timer dist/main.js:200-201',
  maxResetLockedInterval: 'dist/config.js:52; refused below the min at dist/lib.js:150-154',
  gracefulShutdownAbortTimeout: 'dist/config.js:53; the abort dist/main.js:663-665',
  retryDelayUnit: "dist/sql/failJobs.js:20,49,75, `exp(least(attempts, 10)) * interval '1 second'`",
  concurrency: 'dist/config.js:44, concurrentJobs',
};

/**
 * graphile-worker's settings: its defaults, hard-coded durations and the lock timeout anchor,
 * with where the release that `where` describes defines each.
 */
export function graphileSettingsSpec(where: GraphileSources): LibrarySettingsSpec {
  return {
    library: 'graphile-worker',
    anchor: 'lockTimeout',
    settings: [
      {
        name: 'lockTimeout',
        kind: 'duration',
        default: GRAPHILE_LOCK_TIMEOUT_MS,
        where: where.lockTimeout,
        constant: true,
        relation:
          'a locked job is never fetched again until resetLockedAt frees a lock older than this: ' +
          "the job of a crashed worker waits the whole lock timeout, then up to one reset timer's " +
          'interval, before another worker can take it (graphile-worker has no heartbeat)',
      },
      {
        name: 'pollInterval',
        kind: 'duration',
        default: 2 * SECOND,
        where: where.pollInterval,
        floor: {
          ms: GRAPHILE_POLL_FLOOR_MS,
          why:
            'a poll is a fetch statement, and below 50 ms, the curated scenarios’ poll, a worker ' +
            'on this 2-core machine would busy-loop fetches rather than keep a cadence',
          drives:
            "I8 (a free worker's claim latency is judged against the run's poll: a freed job " +
            'waits up to 50 ms for it), and every retry (due within ms, it is fetched at the next poll)',
        },
        relation: 'an idle worker fetches every pollInterval; LISTEN/NOTIFY wakes it for a new job',
      },
      {
        name: 'minResetLockedInterval',
        kind: 'duration',
        default: 8 * MINUTE,
        where: where.minResetLockedInterval,
        relation:
          'each worker pool runs resetLockedAt every random interval in ' +
          '[minResetLockedInterval, maxResetLockedInterval]',
      },
      {
        name: 'maxResetLockedInterval',
        kind: 'duration',
        default: 10 * MINUTE,
        where: where.maxResetLockedInterval,
        relation: 'must be at least minResetLockedInterval',
      },
      {
        name: 'gracefulShutdownAbortTimeout',
        kind: 'duration',
        default: 5 * SECOND,
        where: where.gracefulShutdownAbortTimeout,
        floor: {
          ms: 1,
          why: "Node's timers count whole milliseconds: a shorter setTimeout waits 1 ms",
          drives:
            'the graceful-stop scenarios: the running handler’s abortSignal fires 1 ms after the ' +
            'stop, and graphile-worker fails the job for a retry',
        },
        relation:
          'on a graceful shutdown the pool stops fetching, waits for the running jobs, and aborts ' +
          'their abortSignal after this long (dist/main.js:664-666)',
      },
      {
        name: 'retryDelayUnit',
        kind: 'duration',
        default: SECOND,
        where: where.retryDelayUnit,
        constant: true,
        relation:
          'a failed attempt is retried after exp(least(attempts, 10)) of this: 2.7 s after the ' +
          'first, 6.1 h from the tenth',
      },
      {
        name: 'concurrency',
        kind: 'count',
        default: 1,
        where: where.concurrency,
        relation: 'jobs a worker runs at a time',
      },
    ],
  };
}

/** graphile-worker 0.17.3's settings (the pinned release). */
export const GRAPHILE_SETTINGS: LibrarySettingsSpec = graphileSettingsSpec(GRAPHILE_17_SOURCES);

/** graphile-worker 0.18.0's settings: the same names and values, defined in other lines. */
export const GRAPHILE_18_SETTINGS: LibrarySettingsSpec = graphileSettingsSpec(GRAPHILE_18_SOURCES);
