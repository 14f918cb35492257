/**
 * procrastinate (Python) in primitives mode: leaseproof's own worker loop — its heartbeat on a
 * thread of its own, its watchdog — driving procrastinate's own statements, run by
 * `leaseproof_client.targets.procrastinate_primitives` (`fetch_job`, `update_heartbeat`,
 * `finish_job`, `retry_job` from `procrastinate.sql.queries`). Setup, enqueue and the audit (the
 * lease in `procrastinate_workers`) are the native adapter's. No procrastinate worker runs here,
 * so no periodic deferrer either: the stalled-job recipe's statements are run by the harness
 * (`harness-recipe.ts`), every poll interval.
 */
import { statementsQueue } from '../program/statements-queue.js';
import { procrastinateQueue } from './adapter.js';
import { harnessRecipe } from './harness-recipe.js';

// leaseproof's loop reports its own fail calls, so a late retry_job is told from the harness's
// recipe by its call; native mode's sweep condition (the recipe inside a worker) is not needed.
const { sweep: _nativeSweep, ...audit } = procrastinateQueue.audit;

/** procrastinate 3.x's statements under leaseproof's loop. */
export const procrastinateStatementsQueue = statementsQueue({
  name: 'procrastinate-statements',
  description:
    "procrastinate 3.10's own statements (fetch, worker heartbeat, finish, retry) driven by " +
    "leaseproof's worker loop (heartbeat thread, watchdog); the lease is its stalled timeout.",
  module: 'leaseproof_client.targets.procrastinate_primitives',
  base: { ...procrastinateQueue, audit },
  maintenance: harnessRecipe,
  leaseTerms: (requested) => ({
    lease: { ...requested, extendByMs: requested.durationMs },
    notes: [
      "procrastinate 3.10, primitives mode: leaseproof's worker loop with procrastinate's own " +
        'statements',
      'the lease is the stalled timeout, kept per worker (procrastinate_workers.last_heartbeat): ' +
        "each heartbeat is procrastinate's update_heartbeat and extends every job its worker holds",
      'stalled jobs go back to the queue through procrastinate’s documented recipe ' +
        `(get_stalled_jobs + retry_job), run by the harness every poll interval (${requested.pollMs} ms)`,
    ],
    rescaled: [],
  }),
});
