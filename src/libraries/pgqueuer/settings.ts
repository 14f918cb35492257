/**
 * pgqueuer's own settings, by its own names (pgqueuer 1.6.0; lines from its wheel, as installed
 * in `.tools/python`). The scenario's lease is `heartbeat_timeout`, the staleness after which a
 * `picked` job is re-picked by any worker's dequeue (30 s by default); every other duration is
 * compressed by the same factor.
 *
 * Left out, with the reason: `log_aggregation_interval` (30 s) folds `pgqueuer_log` into
 * statistics and touches no lease; `batch_size` (10) and `max_concurrent_tasks` (unlimited) are
 * counts the harness holds at one job per worker (batch 1, cap 2, the least pgqueuer allows),
 * which the lease terms state.
 */
import {
  formatFactor,
  settleSettings,
  type LibrarySettingsSpec,
  type SettledSettings,
} from '../../queue/library-settings.js';
import type { LeaseSettings } from '../../queue/types.js';

/** pgqueuer 1.6's settings: the lease is `heartbeat_timeout`. */
export const PGQUEUER_SETTINGS: LibrarySettingsSpec = {
  library: 'pgqueuer',
  anchor: 'heartbeat_timeout',
  settings: [
    {
      name: 'heartbeat_timeout',
      kind: 'duration',
      default: 30_000,
      where: 'pgqueuer/core/qm.py:397 (QueueManager.run), core/applications.py:163',
      relation:
        'a picked job whose heartbeat is older is re-picked by the next dequeue ' +
        '(adapters/persistence/qb.py:424-438); each job heartbeats every heartbeat_timeout / 2 ' +
        '(core/qm.py:549-551) through a buffer flushed every heartbeat_timeout / 8 ' +
        '(core/qm.py:426-434)',
    },
    {
      name: 'dequeue_timeout',
      kind: 'duration',
      default: 30_000,
      where: 'pgqueuer/core/qm.py:392 (QueueManager.run), core/applications.py:158',
      relation:
        'an idle worker waits this long for a NOTIFY before it dequeues again, and that dequeue ' +
        'is what re-picks a stale job: recovery can take heartbeat_timeout + dequeue_timeout',
    },
    {
      name: 'min_dequeue_poll_interval',
      kind: 'duration',
      default: 100,
      constant: true,
      where: 'pgqueuer/core/qm.py:89-91 (a dataclass field, init=False)',
      floor: {
        ms: 10,
        why:
          'what a process on this 2-core machine can do: below it a worker whose cap is full ' +
          're-checks a busy queue hundreds of times a second and starves the other workers',
        drives: 'I8 by at most 10 ms: a job that becomes eligible waits that long for a re-check',
      },
      relation: 'the least wait before the queue is checked again; set on the QueueManager',
    },
    {
      name: 'listener health check',
      kind: 'duration',
      default: 10_000,
      constant: true,
      where: 'pgqueuer/core/qm.py:113-115, called without an interval at :442',
      floor: {
        ms: 10_000,
        why: 'run() starts the check with its default interval; no argument reaches it',
        drives:
          'nothing a checker judges: a failed check ends the worker only with ' +
          'shutdown_on_listener_failure, off by default (core/qm.py:396)',
      },
    },
  ],
};

/** The run's value of one of pgqueuer's settings (ms): settled, or the defaults at `lease`. */
export function pgqueuerValue(
  name: string,
  lease: LeaseSettings,
  settings?: SettledSettings,
): number {
  const value = (settings?.values ?? settleSettings(PGQUEUER_SETTINGS, lease).values)[name];
  if (value === undefined) throw new Error(`pgqueuer has no setting ${name}`);
  return value;
}

/** What the scenario's lease became, in one sentence. */
export function pgqueuerLeaseNote(requested: LeaseSettings, settings?: SettledSettings): string {
  const k = settings?.k ?? requested.durationMs / 30_000;
  const timeout = settings?.settings.find((s) => s.name === 'heartbeat_timeout');
  return (
    `the scenario's ${String(requested.durationMs)} ms lease is pgqueuer's heartbeat_timeout ` +
    `(${timeout?.library ?? '30s'}, ${timeout?.stated === true ? 'stated' : 'its default'}): ` +
    `k = ${formatFactor(k)} for every duration of pgqueuer`
  );
}
