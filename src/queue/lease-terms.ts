/**
 * The lease a run actually uses. Most queues take the scenario's lease as it is; a library whose
 * lease is whole seconds, or a hard-coded constant, says through `leaseTerms` what it does
 * instead — and the harness checks that what it says is a lease it can run and judge.
 */
import { AdapterError } from './adapter-error.js';
import type { SettledSettings } from './library-settings.js';
import type { ExtendingQueueAdapter, LeaseSettings, LeaseTerms, QueueAdapter } from './types.js';

const FIELDS = ['durationMs', 'heartbeatMs', 'extendByMs', 'pollMs'] as const;

/**
 * The adapter's terms for `requested`, checked: every setting a positive finite number, notes
 * and rescaled constants well formed. Without `leaseTerms`, the requested lease unchanged.
 * Throws an `AdapterError` naming the adapter and what is wrong.
 */
export function leaseTermsOf(
  adapter: QueueAdapter,
  requested: LeaseSettings,
  settings?: SettledSettings,
): LeaseTerms {
  if (adapter.leaseTerms === undefined) return { lease: requested, notes: [], rescaled: [] };
  let terms: unknown;
  try {
    terms = adapter.leaseTerms(requested, settings);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new AdapterError(`queue adapter "${adapter.name}": leaseTerms() threw: ${message}`, {
      cause: error,
    });
  }
  const problems = termsProblems(terms);
  if (problems.length > 0) {
    throw new AdapterError(
      `queue adapter "${adapter.name}": leaseTerms() returned no usable lease:\n` +
        problems.map((p) => `  - ${p}`).join('\n'),
      { problems },
    );
  }
  return terms as LeaseTerms;
}

function termsProblems(terms: unknown): string[] {
  if (typeof terms !== 'object' || terms === null) {
    return ['expected { lease, notes, rescaled }'];
  }
  const { lease, notes, rescaled, attemptLimitMs } = terms as Record<string, unknown>;
  const problems: string[] = [];
  if (
    attemptLimitMs !== undefined &&
    (typeof attemptLimitMs !== 'number' || !Number.isFinite(attemptLimitMs) || attemptLimitMs <= 0)
  ) {
    problems.push(
      `attemptLimitMs: expected a positive number of ms, got ${JSON.stringify(attemptLimitMs)}`,
    );
  }
  if (typeof lease !== 'object' || lease === null) problems.push('lease: missing');
  else {
    for (const field of FIELDS) {
      const value = (lease as Record<string, unknown>)[field];
      if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
        problems.push(`lease.${field}: expected a positive number of ms, got ${String(value)}`);
      }
    }
  }
  if (!Array.isArray(notes) || notes.some((n) => typeof n !== 'string')) {
    problems.push('notes: expected an array of sentences');
  }
  const { extendsLease } = terms as Record<string, unknown>;
  if (extendsLease !== undefined && typeof extendsLease !== 'boolean') {
    problems.push(
      `extendsLease: expected true, false or absent, got ${JSON.stringify(extendsLease)}`,
    );
  }
  const keys = ['constant', 'library', 'run', 'statement'];
  if (
    !Array.isArray(rescaled) ||
    rescaled.some(
      (r) =>
        typeof r !== 'object' ||
        r === null ||
        keys.some((k) => typeof (r as Record<string, unknown>)[k] !== 'string'),
    )
  ) {
    problems.push(`rescaled: expected an array of { ${keys.join(', ')} }`);
  }
  return problems;
}

/**
 * Terms for a library whose lease has a coarser unit than milliseconds (pg-boss's
 * `expireInSeconds`): the duration rounded *up* to a whole number of `unitMs` (at least one), so
 * a handler never gets less lease than the scenario gave it; the other settings unchanged.
 */
export function leaseInWholeUnits(
  requested: LeaseSettings,
  unitMs: number,
  unitName: string,
): LeaseTerms {
  const durationMs = Math.max(1, Math.ceil(requested.durationMs / unitMs)) * unitMs;
  if (durationMs === requested.durationMs) return { lease: requested, notes: [], rescaled: [] };
  return {
    lease: { ...requested, durationMs },
    notes: [
      `the lease is set in whole ${unitName}: the scenario's ${requested.durationMs} ms lease ` +
        `was rounded up to ${durationMs} ms`,
    ],
    rescaled: [],
  };
}

/** Whether the queue can extend a lease (has `extend`): its workers heartbeat. */
export function hasLeaseExtension(adapter: QueueAdapter): adapter is ExtendingQueueAdapter {
  return typeof adapter.extend === 'function';
}
