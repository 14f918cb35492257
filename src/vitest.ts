/**
 * `leaseproof/vitest`: a property test of a queue adapter in a few lines of a user's own suite.
 * It imports nothing from vitest (any runner that awaits a rejected promise reports it), so it
 * works the same under vitest, node:test or mocha:
 *
 * ```ts
 * import { it } from 'vitest';
 * import { leaseProperty } from 'leaseproof/vitest';
 *
 * it('my queue keeps its leases', () => leaseProperty({ queue: './my-queue.ts', runs: 5, seed: 1 }), 120_000);
 * ```
 */
import { explore } from './explore/explore.js';
import type { ExploreOptions, ExploreResult } from './explore/types.js';

/** Options of `leaseProperty`; everything but `queue` has a default. */
export interface LeasePropertyOptions extends Partial<Omit<ExploreOptions, 'queue'>> {
  /** Built-in queue name or adapter path (relative to the working directory). */
  queue: string;
}

/** Thrown when a counterexample is found; carries the whole result. */
export class LeasePropertyError extends Error {
  /** Stable error code. */
  readonly code = 'LEASEPROOF_LEASE_PROPERTY_FAILED';
  /** The exploration's result. */
  readonly result: Extract<ExploreResult, { failed: true }>;

  constructor(result: Extract<ExploreResult, { failed: true }>) {
    super(
      [
        `${result.violated.join(', ') || 'a run'} violated after ${result.runsDone} runs ` +
          `(shrunk in ${result.shrinks} steps to ${result.scenario.faults.length} fault(s))`,
        `counterexample: ${result.file}`,
        `replay: ${result.replayCommand}`,
      ].join('\n'),
    );
    this.name = 'LeasePropertyError';
    this.result = result;
  }
}

/**
 * Explores fault schedules against `queue` (5 runs, seed 1 and a 2-minute budget by default);
 * resolves with the result when no invariant is violated, rejects with a `LeasePropertyError`
 * (violations, counterexample file, replay command) when one is. A failure that reproduced on
 * none of its replays does not reject: it is in the result's `unconfirmed`, with its report.
 */
export async function leaseProperty(options: LeasePropertyOptions): Promise<ExploreResult> {
  const result = await explore({ runs: 5, seed: 1, budgetMs: 120_000, ...options });
  if (result.failed) throw new LeasePropertyError(result);
  return result;
}

export { explore } from './explore/explore.js';
export type {
  ExploreOptions,
  ExploreProgress,
  ExploreResult,
  ExploreRun,
  UnconfirmedFailure,
} from './explore/types.js';
