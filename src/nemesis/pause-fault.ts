import { WorkerFault } from './worker-fault.js';
import type { NemesisContext } from './types.js';

/** SIGSTOP / SIGCONT of a worker process: a GC pause, a VM live migration. */
export class PauseFault extends WorkerFault {
  constructor(worker: string) {
    super('pause', worker);
  }

  protected inject(ctx: NemesisContext): Promise<void> {
    ctx.pool.worker(this.target).pause();
    return Promise.resolve();
  }

  protected restore(ctx: NemesisContext): Promise<void> {
    const worker = ctx.pool.worker(this.target);
    if (worker.running) worker.resume();
    return Promise.resolve();
  }
}
