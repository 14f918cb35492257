/**
 * How a queue takes a scenario's lease, settled once per run: the lease the run uses (after the
 * adapter's `leaseTerms`) and, when anything differs from the plain contract, the record that
 * the history header carries so that checkers and reports say so.
 */
import type { QueueTermsRecord } from '../history/types.js';
import { AdapterError } from '../queue/adapter-error.js';
import { hasLeaseExtension, leaseTermsOf } from '../queue/lease-terms.js';
import type { LeaseSettings, QueueAdapter } from '../queue/types.js';
import type { RunPlan } from './execute-run.js';
import {
  settleSettings,
  type SettledSettings,
  type StatedSettings,
} from '../queue/library-settings.js';

/** The run's lease and, when not plain, its record. */
export interface SettledQueueTerms {
  /** The settings the run uses. */
  lease: LeaseSettings;
  /**
   * Absent when the queue took the scenario's lease as it is, extends it, needs no sweep and
   * retries failed attempts.
   */
  record?: QueueTermsRecord;
  /** The library's settings as the run uses them (an adapter that declares `settings`). */
  settings?: SettledSettings;
}

/**
 * Settles `adapter`'s terms for the scenario's `requested` lease. `skewsClock`: the run skews a
 * worker's clock, which a queue whose clock cannot be skewed (`limits.clockSkew: false`) then
 * never sees — the record says so, and the checkers cannot call such a run valid.
 */
export function settleQueueTerms(
  adapter: QueueAdapter,
  requested: LeaseSettings,
  skewsClock = false,
  stated?: { values: StatedSettings; source: string },
): SettledQueueTerms {
  if (
    adapter.settings === undefined &&
    stated !== undefined &&
    Object.keys(stated.values).length > 0
  ) {
    throw new AdapterError(
      `${stated.source}: queue "${adapter.name}" declares no library settings; ` +
        `it takes none (${Object.keys(stated.values).join(', ')})`,
    );
  }
  const settings =
    adapter.settings === undefined
      ? undefined
      : settleSettings(adapter.settings, requested, stated?.values, stated?.source);
  const terms = leaseTermsOf(adapter, requested, settings);
  // A native worker runs the library's own loop: whether it heartbeats is the library's word.
  // The run's terms first: a library whose heartbeat is a setting says so per run.
  const extendsLease =
    terms.extendsLease ?? adapter.native?.extendsLease ?? hasLeaseExtension(adapter);
  // A harness-run sweep, or the library's own inside its workers: I8 allows for either.
  const maintenance = adapter.maintenance ?? adapter.native?.sweep;
  const retries = adapter.retries !== false;
  const unskewedClock =
    skewsClock && adapter.limits?.clockSkew === false
      ? `this run skews a worker's clock, and queue "${adapter.name}" cannot be given it: ` +
        (adapter.limits.reason ?? 'its code reads a clock leaseproof cannot skew')
      : undefined;
  const perWorkerLease = adapter.audit.liveness?.table;
  const blockingLoopContract = adapter.contract?.blockingLoop;
  const fencedOnly = adapter.contract?.fencedOnly;
  const leaseTolerance = toleranceOf(adapter, settings, terms.lease);
  const plain =
    perWorkerLease === undefined &&
    blockingLoopContract === undefined &&
    fencedOnly === undefined &&
    leaseTolerance === undefined &&
    terms.notes.length === 0 &&
    terms.rescaled.length === 0 &&
    terms.attemptLimitMs === undefined &&
    extendsLease &&
    maintenance === undefined &&
    retries &&
    unskewedClock === undefined;
  if (plain && settings === undefined) return { lease: terms.lease };
  return {
    lease: terms.lease,
    ...(settings !== undefined && { settings }),
    record: {
      requestedLease: { ...requested },
      notes: [...terms.notes],
      rescaled: terms.rescaled.map((r) => ({ ...r })),
      ...(settings !== undefined && { settings }),
      extendsLease,
      ...(terms.attemptLimitMs !== undefined && { attemptLimitMs: terms.attemptLimitMs }),
      ...(maintenance !== undefined && {
        maintenance: {
          description: maintenance.description,
          intervalMs: maintenance.intervalMs(terms.lease, settings),
        },
      }),
      ...(!retries && { retries: false as const }),
      ...(unskewedClock !== undefined && { unskewedClock }),
      ...(perWorkerLease !== undefined && { perWorkerLease }),
      ...(blockingLoopContract !== undefined && { blockingLoopContract }),
      ...(fencedOnly !== undefined && { fencedOnly }),
      ...(leaseTolerance !== undefined && { leaseTolerance }),
    },
  };
}

/** The adapter's declared lease tolerance for this run, checked to be a duration. */
function toleranceOf(
  adapter: QueueAdapter,
  settings: SettledSettings | undefined,
  lease: LeaseSettings,
): { ms: number; why: string } | undefined {
  const declared = adapter.contract?.leaseTolerance;
  if (declared === undefined) return undefined;
  const ms = declared.ms(settings, lease);
  if (!Number.isFinite(ms) || ms < 0) {
    throw new AdapterError(
      `queue adapter "${adapter.name}": contract.leaseTolerance.ms() returned ${String(ms)}; ` +
        'expected a duration of 0 ms or more',
    );
  }
  return { ms, why: declared.why };
}

/**
 * The library settings a plan states for `adapter`'s library: the scenario's block for that
 * library, then `--setting` over it; undefined when the plan states none.
 */
export function statedSettingsOf(
  adapter: QueueAdapter,
  plan: Pick<RunPlan, 'librarySettings'>,
): { values: StatedSettings; source: string } | undefined {
  const stated = plan.librarySettings;
  if (stated === undefined) return undefined;
  const library = adapter.settings?.library;
  const fromFile = library === undefined ? undefined : stated.byLibrary[library];
  return { values: { ...fromFile, ...stated.command }, source: stated.source };
}
