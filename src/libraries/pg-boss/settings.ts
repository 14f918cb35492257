/**
 * pg-boss's own settings, by its own names, at the two majors leaseproof runs: 10 (the `pg-boss`
 * and `pg-boss-native` queues, on the project's Node) and 12 (`pg-boss@12`, under Node 22).
 *
 * Two specs under two keys, `pg-boss` and `pg-boss-12`, because the same name means two things:
 * `maintenanceIntervalSeconds` is the expiry's cadence in 10 (120 s) and the deletion's in 12
 * (24 h), where the expiry runs on `superviseIntervalSeconds` and `monitorIntervalSeconds`
 * instead; `heartbeatSeconds` exists only in 12. One key would make a scenario's `pg-boss:` block
 * a different deployment on each major.
 *
 * Only the durations that bear on a lease are here. pg-boss's retention and archive settings
 * (`retentionSeconds` 14 days, `deleteAfterSeconds` 7 days, 10's `archiveCompletedAfterSeconds`
 * 12 h) act on jobs no worker holds; compressed by k they would move or delete the rows the audit
 * reads within a minute of a run, so they are left at their defaults. `retryDelay` is 0 in both
 * (10: plans.js:186; 12: QUEUE_DEFAULTS.retry_delay, plans.js:90): a retry is due at once, there
 * is nothing to compress, and the queue is created with pg-boss's 0. 10's
 * `monitorStateIntervalSeconds` is off by default (attorney.js:345-350) and counts states only.
 *
 * Sources: pg-boss 10.4.2's npm package (`node_modules/pg-boss/src`), pg-boss 12.38.1's
 * (`.tools/npm/pg-boss@12.38.1/node_modules/pg-boss/dist`).
 */
import {
  formatFactor,
  settleSettings,
  type LibrarySettingsSpec,
  type SettingSpec,
  type SettledSettings,
} from '../../queue/library-settings.js';
import type { LeaseSettings } from '../../queue/types.js';

/** pg-boss's least `pollingIntervalSeconds`, in both majors (POLICY.MIN_POLLING_INTERVAL_MS). */
const POLLING_FLOOR: SettingSpec['floor'] = {
  ms: 500,
  why: 'pg-boss refuses a pollingIntervalSeconds below 0.5 (POLICY.MIN_POLLING_INTERVAL_MS)',
  drives:
    'I8: a job released by the expiry waits up to 500 ms for the next fetch of an idle worker ' +
    '(half a 1 s lease), not the 2 ms its 2 s default would compress to',
};

const RETRY_LIMIT = (where: string): SettingSpec => ({
  name: 'retryLimit',
  kind: 'count',
  default: 2,
  min: 0,
  where,
  relation:
    'a job is attempted retryLimit + 1 times; a scenario job that names maxAttempts overrides it',
});

/** pg-boss 10: the lease is `expireInSeconds`, ended by the supervisor's `expire()`. */
export const PG_BOSS_10_SETTINGS: LibrarySettingsSpec = {
  library: 'pg-boss',
  anchor: 'expireInSeconds',
  settings: [
    {
      name: 'expireInSeconds',
      kind: 'duration',
      default: 15 * 60_000,
      where: "src/plans.js:192 (expire_in default interval '15 minutes'), :795-798",
      relation:
        'maintenance fails a job past started_on + expire_in back to retry (failJobsByTimeout, ' +
        "plans.js:567); work()'s handler timeout is the same value (manager.js:20-32, :212-219), " +
        'and it fails the job while the handler runs on',
    },
    {
      name: 'maintenanceIntervalSeconds',
      kind: 'duration',
      default: 120_000,
      where: 'src/attorney.js:302-306',
      floor: {
        ms: 1_000,
        why: 'pg-boss refuses a maintenanceIntervalSeconds below 1 (attorney.js:296-297)',
        drives:
          'I8 and the strict half of I1: an expired job stays active up to 1 s (a whole lease) ' +
          'past its deadline before expire() fails it, not 133 ms; a completion in that window ' +
          "lands, as pg-boss's fenced contract allows",
      },
      relation:
        'one expire() per interval across all instances (maintained_on, plans.js:367-385, ' +
        'boss.js:102)',
    },
    {
      name: 'pollingIntervalSeconds',
      kind: 'duration',
      default: 2_000,
      where: 'src/attorney.js:290-292',
      floor: POLLING_FLOOR,
    },
    RETRY_LIMIT('src/plans.js:184 (retry_limit default 2), :804'),
    {
      name: 'loop wait threshold',
      kind: 'duration',
      default: 100,
      constant: true,
      where: 'src/worker.js:77 (a wait under 100 ms before the next fetch is skipped)',
      floor: {
        ms: 100,
        why: "hard-coded in pg-boss's worker loop",
        drives:
          "nothing a checker judges: in work()'s loop (native mode), the next fetch after a job " +
          'is at most 100 ms early',
      },
    },
  ],
};

/**
 * pg-boss 12's `heartbeatSeconds` when a user states one; pg-boss's default is none (`Infinity`
 * in the spec, absent from a run's values).
 */
function heartbeatOf(values: Readonly<Record<string, number>>): number {
  return values.heartbeatSeconds ?? Infinity;
}

/**
 * pg-boss 12: the lease is `expireInSeconds` at pg-boss's defaults, where no heartbeat is
 * configured (`heartbeatSeconds` "Default: none (disabled)", docs/api/queues.md; the queue's
 * `heartbeat_seconds` column is nullable, plans.js:874, and `failJobsByHeartbeat` matches only
 * `heartbeat_seconds IS NOT NULL`, plans.js:2959-2964). A user who states `heartbeatSeconds`
 * runs the heartbeat deployment: then the heartbeat's staleness is the lease (the supervisor
 * fails a job whose `heartbeat_on + heartbeat_seconds` passed), and the expiry stays its cap.
 */
export const PG_BOSS_12_SETTINGS: LibrarySettingsSpec = {
  library: 'pg-boss-12',
  anchor: {
    words:
      'heartbeatSeconds when one is stated (the heartbeat deployment), otherwise ' +
      'expireInSeconds (pg-boss 12 has no heartbeat by default)',
    ms: (values) =>
      Number.isFinite(heartbeatOf(values)) ? heartbeatOf(values) : values.expireInSeconds!,
  },
  settings: [
    {
      name: 'expireInSeconds',
      kind: 'duration',
      default: 15 * 60_000,
      where: 'dist/plans.js:86 (QUEUE_DEFAULTS.expire_seconds, FIFTEEN_MINUTES)',
      relation:
        'the supervisor fails a job past started_on + expire_seconds (plans.js:2954-2958); ' +
        "work()'s handler timeout is the same value, and it aborts the job's signal " +
        '(manager.js:584, :688)',
    },
    {
      name: 'heartbeatSeconds',
      kind: 'duration',
      default: Infinity,
      where:
        'none by default (docs/api/queues.md: "Default: none (disabled)"; dist/attorney.js:631: ' +
        'null or an integer >= 10)',
      relation:
        'work() touches heartbeat_on every heartbeatRefreshSeconds, by default heartbeatSeconds / ' +
        '2 (manager.js:607); a stated value below 10 s is written to the queue row after ' +
        'createQueue(), which refuses it',
    },
    {
      name: 'superviseIntervalSeconds',
      kind: 'duration',
      default: 60_000,
      where: 'dist/attorney.js:662-663',
      floor: {
        ms: 1_000,
        why: 'pg-boss refuses a superviseIntervalSeconds below 1 (attorney.js:662)',
        drives:
          'I8 and the strict half of I1: the supervisor looks for expired jobs every 1 s (a whole ' +
          'lease), not every 67 ms',
      },
      relation: "the supervisor's timer (boss.js:151)",
    },
    {
      name: 'monitorIntervalSeconds',
      kind: 'duration',
      default: 60_000,
      where: 'dist/attorney.js:668-669',
      floor: {
        ms: 1_000,
        why: 'pg-boss refuses a monitorIntervalSeconds below 1 (attorney.js:668)',
        drives:
          'I8 and the strict half of I1: the expiry and heartbeat checks run at most once per ' +
          'second per queue, across instances (trySetQueueMonitorTime, boss.js:331-333, :398-408)',
      },
      relation:
        'docs/api/queues.md: "Actual detection time is heartbeatSeconds + up to ' +
        'monitorIntervalSeconds"',
    },
    {
      name: 'pollingIntervalSeconds',
      kind: 'duration',
      default: 2_000,
      where: 'dist/attorney.js:639-642',
      floor: POLLING_FLOOR,
    },
    RETRY_LIMIT('dist/plans.js:89 (QUEUE_DEFAULTS.retry_limit 2)'),
  ],
};

/** Whether a settled pg-boss 12 run has a heartbeat (a stated `heartbeatSeconds`). */
export function pgBoss12HasHeartbeat(values: Readonly<Record<string, number>>): boolean {
  return Number.isFinite(heartbeatOf(values));
}

/** A pg-boss duration in whole seconds, rounded up (its options are integers or at least 1 s). */
export function wholeSeconds(ms: number): number {
  return Math.ceil(ms / 1_000 - 1e-9);
}

/**
 * The run's values of `spec` (ms for durations): the settled ones, or — for a caller handed no
 * settings, such as a unit test — pg-boss's defaults compressed to `lease`.
 */
export function settledValues(
  spec: LibrarySettingsSpec,
  lease: LeaseSettings,
  settings?: SettledSettings,
): Readonly<Record<string, number>> {
  return settings?.values ?? settleSettings(spec, lease).values;
}

/** The sentence a report gives for what the scenario's lease became: `anchor` at k. */
export function leaseSentence(
  settings: SettledSettings | undefined,
  leaseMs: number,
  anchor: string,
): string {
  const setting = settings?.settings.find((s) => s.name === anchor);
  if (settings === undefined || setting === undefined) {
    return `the scenario's ${String(leaseMs)} ms lease is ${anchor}`;
  }
  return (
    `the scenario's ${String(leaseMs)} ms lease is ${settings.library}'s ${anchor} ` +
    `(${setting.library}, ${setting.stated ? 'stated' : 'its default'}): k = ` +
    `${formatFactor(settings.k)} for every duration of ${settings.library}`
  );
}

/** The run's value of one of pg-boss 10's settings (ms for a duration). */
export function pgBoss10Value(
  name: string,
  lease: LeaseSettings,
  settings?: SettledSettings,
): number {
  const value = settledValues(PG_BOSS_10_SETTINGS, lease, settings)[name];
  if (value === undefined) throw new Error(`pg-boss 10 has no setting ${name}`);
  return value;
}

/** The run's value of one of pg-boss 12's settings (ms for a duration). */
export function pgBoss12Value(
  name: string,
  lease: LeaseSettings,
  settings?: SettledSettings,
): number {
  const value = settledValues(PG_BOSS_12_SETTINGS, lease, settings)[name];
  if (value === undefined) throw new Error(`pg-boss 12 has no setting ${name}`);
  return value;
}
