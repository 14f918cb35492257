/**
 * procrastinate's stalled-job recipe run by the harness, for primitives mode
 * (`procrastinate-statements`), where leaseproof's worker loop runs procrastinate's statements and
 * no procrastinate worker — and so no periodic deferrer — exists to run the recipe's periodic
 * task. The statements are the ones procrastinate's `get_stalled_jobs` and `retry_job` run. Native
 * mode runs the recipe as procrastinate documents it instead: its own periodic task, inside its
 * own workers.
 */
import type { QueueMaintenance } from '../../queue/types.js';
import { positional, procrastinateSql } from './library-sql.js';

/** `get_stalled_jobs` + `retry_job` for each, every poll interval, on the controller. */
export const harnessRecipe: QueueMaintenance = {
  description:
    "procrastinate's stalled-job recipe run by the harness: get_stalled_jobs " +
    '(select_stalled_jobs_by_heartbeat) then retry_job (procrastinate_retry_job_v2) for each, ' +
    'every poll interval',
  intervalMs: (lease) => lease.pollMs,
  async run(db, ctx) {
    const { stalled, retry, queue, task } = await procrastinateSql();
    const seconds = String(ctx.lease.durationMs / 1000);
    const select = positional(stalled, {
      seconds_since_heartbeat: seconds,
      queue,
      task_name: task,
    });
    const { rows } = await db.query<{ id: string }>(select.text, select.values);
    for (const row of rows) {
      const call = positional(retry, {
        job_id: row.id,
        retry_at: null,
        new_priority: null,
        new_queue_name: null,
        new_lock: null,
      });
      // A job finished or retried meanwhile is refused by procrastinate: the next pass sees.
      await db.query(call.text, call.values).catch(() => undefined);
    }
  },
};
