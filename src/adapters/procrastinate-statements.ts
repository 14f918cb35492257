/**
 * procrastinate (Python) in primitives mode: leaseproof's own worker loop — its heartbeat on a
 * thread of its own, its watchdog — driving procrastinate's own statements, run by
 * `leaseproof_client.targets.procrastinate_primitives` (`fetch_job`, `update_heartbeat`,
 * `finish_job`, `retry_job` from `procrastinate.sql.queries`). Setup, enqueue, the audit (the
 * lease in `procrastinate_workers`) and the stalled-job recipe are the native adapter's. Side by
 * side with `--queue procrastinate`, it tells the statements' findings from the loop's.
 */
import type { QueueAdapter } from '../queue/types.js';
import { programQueue } from './program/program-queue.js';
import { programClockLimits, pythonNativeProgram } from './program/python-native.js';
import { procrastinateQueue } from './procrastinate.js';

/** The Python module that answers the primitives with procrastinate's statements. */
export const PROCRASTINATE_PRIMITIVES_MODULE = 'leaseproof_client.targets.procrastinate_primitives';

let program: Promise<QueueAdapter> | undefined;
let started: QueueAdapter | undefined;

/** The program's adapter, started once per process (the controller, each worker, each thread). */
function statements(): Promise<QueueAdapter> {
  program ??= (async () => {
    const { command, env } = await pythonNativeProgram(PROCRASTINATE_PRIMITIVES_MODULE);
    started = await programQueue({ command, ...(env !== undefined && { env }) })();
    return started;
  })().catch((error: unknown) => {
    program = undefined;
    throw error;
  });
  return program;
}

const { audit, maintenance } = procrastinateQueue;

/** procrastinate 3.x's statements under leaseproof's loop. */
export const procrastinateStatementsQueue: QueueAdapter = {
  name: 'procrastinate-statements',
  description:
    "procrastinate 3.10's own statements (fetch, worker heartbeat, finish, retry) driven by " +
    "leaseproof's worker loop (heartbeat thread, watchdog); the lease is its stalled timeout.",
  audit,
  ...(maintenance !== undefined && { maintenance }),
  setup: (db, ctx) => procrastinateQueue.setup(db, ctx),
  teardown: (db) => procrastinateQueue.teardown(db),
  enqueue: (db, jobs, ctx) => procrastinateQueue.enqueue(db, jobs, ctx),
  get limits() {
    return programClockLimits();
  },

  leaseTerms(requested) {
    return {
      lease: { ...requested, extendByMs: requested.durationMs },
      notes: [
        "procrastinate 3.10, primitives mode: leaseproof's worker loop with procrastinate's " +
          'own statements',
        'the lease is the stalled timeout, kept per worker (procrastinate_workers.last_heartbeat): ' +
          "each heartbeat is procrastinate's update_heartbeat and extends every job its worker holds",
        'stalled jobs go back to the queue through procrastinate’s documented recipe ' +
          `(get_stalled_jobs + retry_job), run by the harness every poll interval (${requested.pollMs} ms)`,
      ],
      rescaled: [],
    };
  },

  claim: async (db, ctx) => (await statements()).claim(db, ctx),
  extend: async (db, claim, ctx) => {
    const adapter = await statements();
    return adapter.extend === undefined ? false : adapter.extend(db, claim, ctx);
  },
  ack: async (db, claim, ctx) => (await statements()).ack(db, claim, ctx),
  fail: async (db, claim, error, ctx) => (await statements()).fail(db, claim, error, ctx),
  backendPid: () => started?.backendPid?.(),
};
