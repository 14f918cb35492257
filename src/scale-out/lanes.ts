/**
 * Runs work items N at a time — `--parallel N` of `suite` and `explore`. An item that needs
 * the machine to itself (a db-restart fault cuts every database's connections, not only its own
 * run's) runs alone, after the others: waiting for the lanes to empty in the middle of the list
 * would leave them idle behind it. The others start in their order. Results come back in the
 * items' order, whatever order they ran and finished in, so a parallel run reports exactly what
 * a sequential one does.
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
  /**
   * Resolves when the machine has room for one more item beside the `running()` others under
   * way (see machine-room.ts); absent: the lane count alone decides.
   */
  room?: ((running: () => number, signal?: AbortSignal) => Promise<void>) | undefined;
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
  const isAlone = (i: number): boolean => options.exclusive?.(items[i]!) === true;
  const indices = items.map((_, i) => i);
  const order = [...indices.filter((i) => !isAlone(i)), ...indices.filter(isAlone)];
  let next = 0;
  while (next < order.length && !signal.aborted) {
    const index = order[next]!;
    const item = items[index]!;
    const alone = isAlone(index);
    while (
      running.size > 0 &&
      (running.size >= options.lanes || alone || exclusiveRunning) &&
      !signal.aborted
    ) {
      await Promise.race(running);
    }
    if (signal.aborted) break;
    // An item that must be alone has the machine to itself already; others wait for room.
    if (options.room !== undefined && !alone) {
      await options.room(() => running.size, signal);
      if (signal.aborted) break;
    }
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
