import type { HandlerPlan, UnitPlan } from './types.js';

/**
 * Waits `ms` on the global `setTimeout` — not `node:timers/promises`, which fake timers do not
 * reach: the tuning simulation runs this very handler on @sinonjs/fake-timers.
 */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** What the handler reports while it runs. */
export interface HandlerHooks {
  /** Before a unit starts. */
  onUnit(index: number, unit: UnitPlan): void;
  /** When a unit's effect happens; awaited, so the effect is on record before the next unit. */
  onEffect(index: number): Promise<void>;
  /** When the abort signal stops the handler before unit `index`. */
  onAbort(index: number): void;
  /**
   * When a handler that ignores its cancellation (`ignoresAbort`) passes the point before unit
   * `index` with its abort signal set, and goes on: once, at the first such point.
   */
  onAbortIgnored?(index: number): void;
  /**
   * After unit `index` is done, for handlers that checkpoint: commits the cursor `index + 1`.
   * Resolves false when the claim is lost (the write was fenced off), which stops the handler.
   */
  onCheckpoint?(index: number): Promise<boolean>;
}

/** How a handler run ended. */
export type HandlerResult = { completed: true } | { completed: false; abortedAtUnit: number };

/**
 * Blocks the event loop for `ms`: a synchronous computation, a blocked runtime. Measured on the
 * monotonic clock, so a SIGSTOP during the loop counts as time spent.
 */
export function busyWait(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // Spin.
  }
}

/** Reads the handler plan from a job payload, or explains what is wrong with it. */
export function handlerPlanOf(payload: Record<string, unknown>): HandlerPlan {
  const units = payload.units;
  if (!Array.isArray(units)) throw new Error('job payload has no "units" array');
  return {
    checkpoint: payload.checkpoint === true,
    ignoresAbort: payload.ignoresAbort === true,
    failAttempts: typeof payload.failAttempts === 'number' ? payload.failAttempts : 0,
    units: units.map((u: Partial<UnitPlan>, i) => {
      if (typeof u?.ms !== 'number') throw new Error(`job payload units[${i}].ms is not a number`);
      return { ms: u.ms, sync: u.sync === true, effect: u.effect === true };
    }),
  };
}

/**
 * Runs the units in order, checking `signal` between units (the watchdog's cancellation point,
 * as a handler that respects context cancellation would). An aborted unit is not interrupted:
 * real handlers stop between units of work, not in the middle of a side effect.
 */
export async function runHandler(
  plan: HandlerPlan,
  signal: AbortSignal,
  hooks: HandlerHooks,
  startAt = 0,
): Promise<HandlerResult> {
  let ignored = false;
  for (const [index, unit] of plan.units.entries()) {
    // Units before the checkpointed cursor were done (and committed) by an earlier claim.
    if (index < startAt) continue;
    if (signal.aborted && plan.ignoresAbort === true) {
      // Recorded by the harness, not seen by the handler: the history must show that the worker
      // did cancel it, so that what follows is judged as the handler's doing.
      if (!ignored) hooks.onAbortIgnored?.(index);
      ignored = true;
    } else if (signal.aborted) {
      hooks.onAbort(index);
      return { completed: false, abortedAtUnit: index };
    }
    hooks.onUnit(index, unit);
    if (unit.sync) busyWait(unit.ms);
    else await sleep(unit.ms);
    if (unit.effect) await hooks.onEffect(index);
    if (hooks.onCheckpoint && index < plan.units.length - 1 && !(await hooks.onCheckpoint(index))) {
      hooks.onAbort(index + 1);
      return { completed: false, abortedAtUnit: index + 1 };
    }
  }
  return { completed: true };
}
