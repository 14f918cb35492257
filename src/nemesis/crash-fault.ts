import { WorkerFault } from './worker-fault.js';
import type { NemesisContext } from './types.js';

/** SIGKILL of a worker process: a crash. Nothing heals it (a restart is a new worker). */
export class CrashFault extends WorkerFault {
  constructor(worker: string) {
    super('crash', worker);
  }

  protected async inject(ctx: NemesisContext): Promise<void> {
    await ctx.pool.worker(this.target).kill();
  }

  protected restore(): Promise<void> {
    return Promise.resolve();
  }
}
