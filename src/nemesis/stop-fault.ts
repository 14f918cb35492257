import { WorkerFault } from './worker-fault.js';
import type { NemesisContext } from './types.js';

/**
 * How long past its own shutdown timeout a stopped worker may take to exit (closing its
 * connections, flushing its events) before the harness kills it: no process outlives a run.
 */
export const STOP_KILL_MARGIN_MS = 5_000;

/**
 * SIGTERM of a worker process: a deploy, a scale-down, a node drained. The worker stops claiming,
 * lets the handler it holds finish — heartbeating it — and acks, or cancels it once `timeoutMs`
 * is over and leaves the job to its lease; then it exits (without waiting long for a handler
 * that ignores its cancellation). Starting the fault waits for that exit (so a
 * fault scheduled later finds the worker gone); with `restartAfterMs`, run as the fault's
 * `forMs`, a fresh process takes the id that long after the exit, else it stays down.
 */
export class StopFault extends WorkerFault {
  constructor(
    worker: string,
    readonly timeoutMs: number,
    readonly restartAfterMs?: number,
  ) {
    super('stop', worker, {
      timeoutMs,
      ...(restartAfterMs !== undefined && { restartAfterMs }),
    });
  }

  protected async inject(ctx: NemesisContext): Promise<void> {
    // SIGTERM, then SIGKILL if the worker is still there well past its own timeout.
    await ctx.pool.worker(this.target).stop(this.timeoutMs + STOP_KILL_MARGIN_MS);
  }

  protected async restore(ctx: NemesisContext): Promise<void> {
    if (this.restartAfterMs === undefined) return;
    await ctx.pool.restartWorker(this.target);
  }
}
