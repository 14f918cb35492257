/**
 * Collects the parameters of one statement while its SQL is assembled from parts, so that a part
 * (a fence, a deadline) can add a value without knowing which `$n` the parts before it used.
 * This is what lets the known-bad variants swap one part of a reference statement and keep the
 * rest of it, text and all.
 */
export class SqlParams {
  /** The values, in `$1…$n` order; pass them to `query` with the finished SQL. */
  readonly values: unknown[] = [];

  /** Adds a value and returns its placeholder (`$3`). */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}
