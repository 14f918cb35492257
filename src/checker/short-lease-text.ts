/**
 * Short leases in words: I6's warning over a run's grants or extensions, and the clause I3 adds
 * to a lost job's evidence. Figures are whole milliseconds — medians and worsts of lease left,
 * where a microsecond says nothing — and nearest-rank medians, as every distribution here is.
 */
import type { LeaseLeft } from './short-leases.js';
import { SHORT_LEASE_FRACTION } from './short-leases.js';

/**
 * I6's warning for `short`, the grants (or extensions) of `total` that left their holder short:
 * how many, the lease left at the write and when the answer came (median and worst) against the
 * configured lease, and where the deadline was counted from.
 */
export function shortLeaseWarning(short: readonly LeaseLeft[], total: number): string {
  const grants = short[0]!.what === 'grant';
  const lease = `${short[0]!.leaseMs}ms ${grants ? 'lease' : 'extension (extendBy)'}`;
  return (
    `${short.length} of ${total} ${grants ? 'grants' : 'extensions'} left their holder short of the ${lease} ` +
    `(by more than ε + ${SHORT_LEASE_FRACTION * 100} %): ${leftWords(short)}. The deadline was ` +
    `counted from ${originWords(short)} — right by I6, which accepts now() of the transaction, ` +
    `but a write that comes long after that start leaves its holder this much less`
  );
}

/**
 * The clause I3 adds to a lost job's evidence when its claims were left short leases, e.g.
 * `each of its 9 claims was left a median 797ms of the 2000ms lease at its grant's write …`.
 */
export function shortClaimsClause(short: readonly LeaseLeft[], claims: number): string {
  const who =
    short.length === claims
      ? `each of its ${claims} claims was`
      : `${short.length} of its ${claims} claims were`;
  return (
    `${who} left ${leftWords(short, `of the ${short[0]!.leaseMs}ms lease `)}; each deadline was ` +
    `counted from ${originWords(short)}`
  );
}

/** Lease left at the write and, where the worker's answers are known, when they came. */
function leftWords(short: readonly LeaseLeft[], ofLease = ''): string {
  const atWrite = short.map((l) => l.atWriteMs);
  const answered = short.filter((l) => !Number.isNaN(l.atAnswerMs));
  const words =
    `a median ${left(median(atWrite))} ${ofLease}at the write (worst ${left(Math.min(...atWrite))}), ` +
    'which the commit followed';
  if (answered.length === 0) return words;
  const atAnswer = answered.map((l) => l.atAnswerMs);
  const after = answered.map((l) => l.answerAfterMs);
  return (
    `${words}, and ${left(median(atAnswer))} (worst ${left(Math.min(...atAnswer))}) when the ` +
    `answer reached the worker, a median ${ms(median(after))} after the write`
  );
}

/** Where the deadlines were counted from, and how long before their writes. */
function originWords(short: readonly LeaseLeft[]): string {
  const byTransaction = short.filter((l) => l.countedFrom === 'transaction').length;
  const from =
    byTransaction === short.length
      ? "the transaction's start (now())"
      : byTransaction === 0
        ? "the statement's start"
        : `the transaction's start (now()) for ${byTransaction} of them, the statement's for the rest`;
  const before = short.map((l) => l.countedBeforeMs);
  return `${from}, a median ${ms(median(before))} (worst ${ms(Math.max(...before))}) before the write`;
}

/** Nearest-rank median. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length / 2) - 1)]!;
}

/** A duration in whole milliseconds: a lease's figures need no more. */
export function ms(value: number): string {
  return `${Math.round(value)}ms`;
}

/** Lease left: a negative figure is a lease that had ended already. */
function left(value: number): string {
  return value >= 0 ? ms(value) : `none (${ms(-value)} past the deadline)`;
}
