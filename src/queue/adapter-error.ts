import { LeaseproofError } from '../errors.js';

/**
 * A queue adapter could not be loaded: an unknown built-in name, a file that is missing or fails
 * to import, or an export that is not a `QueueAdapter`. The message names the source and says
 * what was expected.
 */
export class AdapterError extends LeaseproofError {
  /** Each thing wrong with the adapter's shape, one per entry; empty for the other failures. */
  readonly problems: readonly string[];

  constructor(message: string, options: { cause?: unknown; problems?: readonly string[] } = {}) {
    super(
      'LEASEPROOF_BAD_ADAPTER',
      message,
      options.cause === undefined ? undefined : { cause: options.cause },
    );
    this.problems = options.problems ?? [];
  }
}
