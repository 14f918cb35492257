import { WorkerFault } from './worker-fault.js';
import type { NemesisContext } from './types.js';

/**
 * SIGKILL of a worker process, healed by starting a fresh process under the same worker id
 * behind the same proxy: a crash followed by a supervisor's restart. Run with `forMs` =
 * `restartAfter`, so the fault's window is the time the worker was down. The replacement
 * starts with nothing: whatever the crashed process held comes back only through lease expiry.
 */
export class CrashRestartFault extends WorkerFault {
  constructor(
    worker: string,
    readonly restartAfterMs: number,
  ) {
    super('crash', worker, { restartAfterMs });
  }

  protected async inject(ctx: NemesisContext): Promise<void> {
    await ctx.pool.worker(this.target).kill();
  }

  protected async restore(ctx: NemesisContext): Promise<void> {
    await ctx.pool.restartWorker(this.target);
  }
}
