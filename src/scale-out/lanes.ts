/**
 * Runs work items N at a time — `--parallel N` of `suite` and `explore`. Items start in their
 * order; an item that needs the machine to itself (a db-restart fault cuts every database's
 * connections, not only its own run's) waits until nothing else runs, and nothing starts beside
 * it. Results come back in the items' order, whatever order they finished in, so a parallel
 * run reports exactly what a sequential one does.
 */

/** How `runInLanes` runs its items. */
export interface LaneOptions<T> {
  /** How many items may run at once (≥ 1). */
  lanes: number;
  /** Whether an item must run alone. */
  exclusive?: (item: T) => boolean;
  /**
   * Aborting it (Ctrl-C) starts nothing more; the items under way get it through their own
   * signal and end as they do on an interrupt. Their results are kept.
   */
  signal?: AbortSignal | undefined;
}

/** What `runInLanes` produced. */
export interface LaneResults<R> {
  /** Per item, in the items' order; `undefined` for an item that never started. */
  results: (R | undefined)[];
  /** How many items started. */
  started: number;
}

/**
 * Runs `work` over `items`, at most `options.lanes` at once. The first item to throw stops the
 * others (their signal aborts) and, once they have all settled — nothing is left running behind
 * the caller's back — is rethrown.
 */
export async function runInLanes<T, R>(
  items: readonly T[],
  options: LaneOptions<T>,
  work: (item: T, index: number, signal: AbortSignal) => Promise<R>,
): Promise<LaneResults<R>> {
  if (!Number.isInteger(options.lanes) || options.lanes < 1) {
    throw new RangeError(`lanes must be a whole number ≥ 1; got ${options.lanes}`);
  }
  const failed = new AbortController();
  const signal =
    options.signal === undefined ? failed.signal : AbortSignal.any([options.signal, failed.signal]);
  const results: (R | undefined)[] = new Array<R | undefined>(items.length).fill(undefined);
  const running = new Set<Promise<void>>();
  let exclusiveRunning = false;
  let firstError: { error: unknown } | undefined;
  let next = 0;
  while (next < items.length && !signal.aborted) {
    const item = items[next]!;
    const alone = options.exclusive?.(item) === true;
    // Head of the line waits: items start in order, so the split of work is the same every run.
    while (
      running.size > 0 &&
      (running.size >= options.lanes || alone || exclusiveRunning) &&
      !signal.aborted
    ) {
      await Promise.race(running);
    }
    if (signal.aborted) break;
    const index = next;
    next += 1;
    exclusiveRunning = alone;
    const task = work(item, index, signal).then(
      (result) => {
        results[index] = result;
      },
      (error: unknown) => {
        firstError ??= { error };
        failed.abort();
      },
    );
    const tracked: Promise<void> = task.finally(() => {
      running.delete(tracked);
      if (alone) exclusiveRunning = false;
    });
    running.add(tracked);
  }
  await Promise.all(running);
  if (firstError !== undefined) throw firstError.error;
  return { results, started: next };
}
