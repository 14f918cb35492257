/**
 * graphile-worker under test in native mode: its own `run()` worker pool is the worker — its
 * fetch, LISTEN for new jobs, `completeJobs` / `failJobs`, and the pool's `resetLockedAt` timer
 * that frees locks older than the lock timeout — run in each worker process by
 * `src/native/targets/graphile-worker-target.ts` on a pg pool through the worker's proxy. The
 * controller installs, enqueues and tears down as the primitives adapter (`graphile-worker`)
 * does; the audit reads the lock in the same place, and the 4-hour lock timeout and the reset
 * timer are rescaled to the lease the same way.
 */
import { nativeOnlyPrimitives } from '../../queue/native-only.js';
import type { LeaseSettings, QueueAdapter } from '../../queue/types.js';
import { graphileWorkerQueue, resetLockedIntervalsMs } from './adapter.js';
import { nodeNativeProgram } from '../program/node-native.js';
import { programClockLimits } from '../program/program-clock.js';

/** The graphile-worker 0.17 native adapter. */
export const graphileWorkerNativeQueue: QueueAdapter = {
  name: 'graphile-worker-native',
  description:
    'graphile-worker 0.17 through its own run() worker pool: its fetch, completion, failure and ' +
    'resetLockedAt timer; its 4-hour lock timeout rescaled to the run’s lease, no lease extension.',
  audit: {
    ...graphileWorkerQueue.audit,
    // The pool's resetLockedAt, run in a worker's process on whichever jobs are stale, is a
    // sweep: it unlocks a job without a new error and without a new attempt. A fail writes the
    // handler's error (the plan's names its attempt, so it always changes), a fetch counts an
    // attempt, a completion deletes the row.
    sweep: `o.locked_at IS NOT NULL AND r.locked_at IS NULL AND r.attempts = o.attempts
      AND r.last_error IS NOT DISTINCT FROM o.last_error`,
  },
  get limits() {
    return programClockLimits();
  },
  ...nativeOnlyPrimitives('graphile-worker-native'),
  native: {
    description:
      'graphile-worker run(concurrency 1, pollInterval = poll, min/maxResetLockedInterval ' +
      'rescaled) on a pg pool through the worker’s proxy',
    extendsLease: false,
    program: () => nodeNativeProgram('graphile-worker'),
    sweep: {
      description:
        "graphile-worker's pool frees a lock older than the lock timeout in resetLockedAt, on a " +
        'timer of minResetLockedInterval–maxResetLockedInterval in every worker (rescaled): ' +
        'the allowance is the longest interval',
      intervalMs: (lease: LeaseSettings) => resetLockedIntervalsMs(lease).maxMs,
    },
  },

  leaseTerms(requested: LeaseSettings) {
    const base = graphileWorkerQueue.leaseTerms!(requested);
    const { minMs, maxMs } = resetLockedIntervalsMs(requested);
    return {
      lease: { ...base.lease, heartbeatMs: requested.durationMs, extendByMs: requested.durationMs },
      notes: [
        `${base.notes[0] ?? 'graphile-worker'}, native mode: its own run() worker pool`,
        ...base.notes.slice(1),
        "graphile-worker has no heartbeat: the scenario's heartbeat is not graphile-worker's to take",
        'concurrency 1: a worker runs one job at a time',
      ],
      rescaled: base.rescaled.map((r) =>
        r.constant === 'stale-lock sweep interval'
          ? {
              ...r,
              run: `${minMs}–${maxMs} ms (8–10 minutes at the same scale)`,
              statement:
                "the worker pool's resetLocked timer, set by its minResetLockedInterval and " +
                'maxResetLockedInterval options',
            }
          : {
              ...r,
              statement: `${r.statement}, rewritten by the worker's pg client (src/native/targets/graphile-worker-target.ts)`,
            },
      ),
    };
  },

  setup: (db, ctx) => graphileWorkerQueue.setup(db, ctx),
  teardown: (db) => graphileWorkerQueue.teardown(db),
  enqueue: (db, jobs, ctx) => graphileWorkerQueue.enqueue(db, jobs, ctx),
};
