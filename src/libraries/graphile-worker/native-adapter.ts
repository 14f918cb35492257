/**
 * graphile-worker under test in native mode: its own `run()` worker pool is the worker — its
 * fetch, LISTEN for new jobs, `completeJobs` / `failJobs`, and the pool's `resetLockedAt` timer
 * that frees locks older than the lock timeout — run in each worker process by
 * `src/native/targets/graphile-worker-target.ts` on a pg pool through the worker's proxy, with
 * graphile-worker's settings at the run's scale (`settings.ts`) as its `run()` options. The
 * controller installs, enqueues and tears down as the primitives adapter (`graphile-worker`)
 * does; the audit reads the lock in the same place, and the hard-coded lock timeout and retry
 * backoff are rewritten the same way.
 */
import { nativeOnlyPrimitives } from '../../queue/native-only.js';
import { settingValue } from '../../queue/library-settings.js';
import type { SettledSettings } from '../../queue/library-settings.js';
import type { LeaseSettings, LeaseTerms, QueueAdapter } from '../../queue/types.js';
import { GRAPHILE_WORKER, graphileWorkerQueue } from './adapter.js';
import { libraryVersion } from '../load-library.js';
import { graphileSettings, graphileTerms, resetIntervalMs } from './terms.js';
import { nodeNativeProgram } from '../program/node-native.js';
import { programClockLimits } from '../program/program-clock.js';
import { GRAPHILE_SETTINGS } from './settings.js';

/** The graphile-worker 0.17 native adapter. */
export const graphileWorkerNativeQueue: QueueAdapter = {
  name: 'graphile-worker-native',
  description:
    'graphile-worker 0.17 through its own run() worker pool: its fetch, completion, failure and ' +
    'resetLockedAt timer; lease = its 4-hour lock timeout, every duration at the same scale, ' +
    'no lease extension.',
  contract: graphileWorkerQueue.contract!,
  audit: {
    ...graphileWorkerQueue.audit,
    // The pool's resetLockedAt, run in a worker's process on whichever jobs are stale, is a
    // sweep: it unlocks a job without a new error and without a new attempt. A fail writes the
    // handler's error (the plan's names its attempt, so it always changes), a fetch counts an
    // attempt, a completion deletes the row.
    sweep: `o.locked_at IS NOT NULL AND r.locked_at IS NULL AND r.attempts = o.attempts
      AND r.last_error IS NOT DISTINCT FROM o.last_error`,
  },
  settings: GRAPHILE_SETTINGS,
  get limits() {
    return programClockLimits();
  },
  ...nativeOnlyPrimitives('graphile-worker-native'),
  native: {
    description:
      'graphile-worker run() with its concurrency, pollInterval, min/maxResetLockedInterval and ' +
      'gracefulShutdownAbortTimeout at the run’s scale, on a pg pool through the worker’s proxy',
    extendsLease: false,
    program: () => nodeNativeProgram('graphile-worker'),
    sweep: {
      description:
        "graphile-worker's pool frees a lock older than the lock timeout in resetLockedAt, on a " +
        'timer of minResetLockedInterval–maxResetLockedInterval in every worker: the allowance ' +
        'is the longest interval',
      intervalMs: (lease, settings) => resetIntervalMs(lease, settings),
    },
  },

  leaseTerms: (requested, settings) =>
    nativeTerms(requested, graphileSettings(requested, settings), {
      library: `graphile-worker ${libraryVersion(GRAPHILE_WORKER)}`,
      mode: 'native mode: its own run() worker pool',
    }),

  setup: (db, ctx) => graphileWorkerQueue.setup(db, ctx),
  teardown: (db) => graphileWorkerQueue.teardown(db),
  enqueue: (db, jobs, ctx) => graphileWorkerQueue.enqueue(db, jobs, ctx),
};

/**
 * The terms of graphile-worker's own `run()` pool at `settled` (0.17 here, 0.18 under Node 22):
 * the lease is the lock timeout, polled at pollInterval; no heartbeat, so the scenario's
 * heartbeat and extension are the lease itself.
 */
export function nativeTerms(
  requested: LeaseSettings,
  settled: SettledSettings,
  release: { library: string; mode: string },
): LeaseTerms {
  const { lease, notes } = graphileTerms(requested, settled, release.library);
  const concurrency = settingValue(settled, 'concurrency');
  return {
    lease: { ...lease, heartbeatMs: requested.durationMs, extendByMs: requested.durationMs },
    notes: [
      `${release.library}, ${release.mode}`,
      ...notes.slice(1),
      "native mode: graphile-worker's own pool fetches every pollInterval while idle and at " +
        "once on a new job's NOTIFY, and each worker runs resetLockedAt on its own timer of " +
        'minResetLockedInterval–maxResetLockedInterval',
      "graphile-worker has no heartbeat: the scenario's heartbeat is not graphile-worker's to take",
      concurrency === 1
        ? 'concurrency 1: a worker runs one job at a time'
        : `concurrency ${String(concurrency)}: a worker runs up to ${String(concurrency)} jobs at a time`,
    ],
    rescaled: [],
  };
}
