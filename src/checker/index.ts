/**
 * The checkers: one per lease invariant of design.md (I1–I9), each a pure function from a
 * history to a verdict — valid, invalid with evidence, or unknown with why — and their
 * composition (invalid > unknown > valid). A checker that throws says unknown.
 */
import type { History } from '../history/types.js';
import { atLeastOnceBound } from './at-least-once-bound.js';
import { boundedZombie } from './bounded-zombie.js';
import { runCheckers } from './compose.js';
import { exclusiveClaim } from './exclusive-claim.js';
import { explainedExpiry } from './explained-expiry.js';
import { leaseHonored } from './lease-honored.js';
import { noLostJob } from './no-lost-job.js';
import { noStaleAck } from './no-stale-ack.js';
import { singleCompletion } from './single-completion.js';
import { timelyRecovery } from './timely-recovery.js';
import type { CheckOptions, Checker, CompositeResult } from './types.js';

/** All nine checkers, in invariant order. */
export const ALL_CHECKERS: readonly Checker[] = Object.freeze([
  noStaleAck,
  singleCompletion,
  noLostJob,
  exclusiveClaim,
  atLeastOnceBound,
  leaseHonored,
  boundedZombie,
  timelyRecovery,
  explainedExpiry,
]);

/** The checkers' names, as scenarios list them. */
export const CHECKER_NAMES: readonly string[] = ALL_CHECKERS.map((c) => c.name);

/** A checker by name (`no-stale-ack`) or id (`I1`), or undefined. */
export function checkerByName(name: string): Checker | undefined {
  return ALL_CHECKERS.find((c) => c.name === name || c.id === name);
}

/** Runs every checker over `history` and composes their verdicts. */
export function checkHistory(
  history: History,
  options: Partial<CheckOptions> = {},
): CompositeResult {
  return runCheckers(ALL_CHECKERS, history, options);
}

export {
  atLeastOnceBound,
  boundedZombie,
  exclusiveClaim,
  explainedExpiry,
  leaseHonored,
  noLostJob,
  noStaleAck,
  singleCompletion,
  timelyRecovery,
};
