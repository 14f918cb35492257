/**
 * The terms of a graphile-worker run, common to its queues (statements, native, 0.18): its
 * settings settled at the run's one time factor (`settings.ts`), the two durations it hard-codes
 * in its SQL rewritten to the run's scale in exactly the statements that hold them, and the
 * notes that say what the scenario's lease stands for in graphile-worker's terms.
 */
import { AdapterError } from '../../queue/adapter-error.js';
import {
  formatFactor,
  settingValue,
  settleSettings,
  type LibrarySettingsSpec,
  type SettledSettings,
} from '../../queue/library-settings.js';
import type { LeaseSettings } from '../../queue/types.js';
import { GRAPHILE_SETTINGS } from './settings.js';

/** The lock timeout graphile-worker hard-codes in `resetLockedAt`, as it appears there. */
export const GRAPHILE_LOCK_TIMEOUT_SQL = "interval '4 hours'";

/** The retry backoff graphile-worker hard-codes in `failJobs`, as it appears there. */
export const GRAPHILE_RETRY_DELAY_SQL = "exp(least(attempts, 10)) * interval '1 second'";

/** What a statement of graphile-worker's becomes on its way to the database. */
export type Rewrite = (text: string) => string;

/**
 * graphile-worker's settings for a run: as the harness settled them, or — where a call is not
 * handed them (a worker process's `fail`, a test) — its defaults at the lease's scale. The two
 * agree on every hard-coded duration: the anchor is hard-coded too, so k is the lease's alone.
 */
export function graphileSettings(
  lease: LeaseSettings,
  settings?: SettledSettings,
  spec: LibrarySettingsSpec = GRAPHILE_SETTINGS,
): SettledSettings {
  return settings ?? settleSettings(spec, lease);
}

/** `interval '<ms> milliseconds'` (PostgreSQL keeps microseconds). */
export function sqlInterval(ms: number): string {
  return `interval '${String(Math.round(ms * 1000) / 1000)} milliseconds'`;
}

/**
 * Rewrites graphile-worker's lock timeout in the `resetLockedAt` statement (it appears twice:
 * jobs and job queues) to the run's `lockTimeoutMs`. Refuses a statement that does not hold it
 * twice. `library` names the release in the refusal.
 */
export function rescaleResetLocked(lockTimeoutMs: number, library = 'graphile-worker'): Rewrite {
  return rewriteExactly(
    library,
    'resetLockedAt',
    GRAPHILE_LOCK_TIMEOUT_SQL,
    2,
    sqlInterval(lockTimeoutMs),
  );
}

/**
 * Rewrites graphile-worker's retry backoff in a `failJobs` statement, `exp(least(attempts, 10))`
 * seconds, to `exp(least(attempts, 10))` × the run's `unitMs`. Refuses a statement that does not
 * hold it once.
 */
export function rescaleRetryDelay(unitMs: number, library = 'graphile-worker'): Rewrite {
  return rewriteExactly(
    library,
    'failJobs',
    GRAPHILE_RETRY_DELAY_SQL,
    1,
    `exp(least(attempts, 10)) * ${sqlInterval(unitMs)}`,
  );
}

/**
 * Replaces `text`, which `statement` of `library` must hold exactly `times` times, by `by`: a
 * graphile-worker whose statement changed must not be run with durations nobody checked.
 */
function rewriteExactly(
  library: string,
  statement: string,
  text: string,
  times: number,
  by: string,
): Rewrite {
  return (sql) => {
    const parts = sql.split(text);
    if (parts.length !== times + 1) {
      throw new AdapterError(
        `${library}: its ${statement} statement holds ${text} ${parts.length - 1} time(s), ` +
          `not ${times}; leaseproof cannot compress it (written for graphile-worker 0.17 and 0.18)`,
      );
    }
    return parts.join(by);
  };
}

/**
 * The run's terms common to every graphile-worker queue: the lease (the lock timeout) with
 * graphile-worker's pollInterval as the poll, and the notes that say what the lease stands for,
 * the first naming `library` (`graphile-worker 0.17.3`). Refuses settings graphile-worker refuses
 * (min above max reset interval).
 */
export function graphileTerms(
  requested: LeaseSettings,
  settled: SettledSettings,
  library: string,
): { lease: LeaseSettings; notes: string[] } {
  const value = (name: string): number => settingValue(settled, name);
  const [min, max] = [value('minResetLockedInterval'), value('maxResetLockedInterval')];
  if (max < min) {
    throw new AdapterError(
      `graphile-worker refuses maxResetLockedInterval below minResetLockedInterval ` +
        `(its run() refuses them): ${shownSetting(settled, 'maxResetLockedInterval')} < ` +
        shownSetting(settled, 'minResetLockedInterval'),
    );
  }
  const lockTimeout = value('lockTimeout');
  const poll = value('pollInterval');
  const ms = (n: number): string => `${String(Math.round(n * 10) / 10)} ms`;
  const notes = [
    library,
    `the scenario's lease is graphile-worker's lock timeout (4 h, k = ${formatFactor(settled.k)}): ` +
      'a job whose worker crashed or lost its database stays locked for all of it — ' +
      `4 h in graphile-worker, ${ms(lockTimeout)} here — and then up to one reset timer's ` +
      `interval (${shownSetting(settled, 'maxResetLockedInterval')}; ${ms(max)} here) before ` +
      'another worker can take it; graphile-worker ' +
      'has no heartbeat to notice sooner (graphile/worker#222, #198)',
    'the lock timeout and the retry backoff are hard-coded in graphile-worker’s SQL: this run ' +
      `rewrites ${GRAPHILE_LOCK_TIMEOUT_SQL} in resetLockedAt (both occurrences) to ` +
      `${sqlInterval(lockTimeout)}, and the backoff's interval '1 second' in failJobs to ` +
      `${sqlInterval(value('retryDelayUnit'))}; no other statement is changed`,
  ];
  if (poll !== requested.pollMs) {
    notes.push(
      `the scenario's poll of ${ms(requested.pollMs)} gives way to graphile-worker's ` +
        `pollInterval, ${ms(poll)} in this run`,
    );
  }
  // The lease is the lock timeout: the anchor, so its run value is the lease itself.
  return { lease: { ...requested, pollMs: poll }, notes };
}

function shownSetting(settled: SettledSettings, name: string): string {
  return settled.settings.find((s) => s.name === name)?.library ?? name;
}

/**
 * The sweep's allowance in a run: `maxResetLockedInterval`, the longest a worker pool waits
 * between two resetLockedAt passes (to the µs, as the report prints it).
 */
export function resetIntervalMs(lease: LeaseSettings, settings?: SettledSettings): number {
  const ms = settingValue(graphileSettings(lease, settings), 'maxResetLockedInterval');
  return Math.round(ms * 1000) / 1000;
}
