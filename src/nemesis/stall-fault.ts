import { WorkerFault } from './worker-fault.js';
import type { NemesisContext } from './types.js';

/**
 * Blocks a worker's event loop for `ms` with a synchronous busy loop. Its heartbeat thread keeps
 * running; a heartbeat on the event loop does not. It heals itself when the loop ends.
 */
export class StallFault extends WorkerFault {
  constructor(
    worker: string,
    private readonly ms: number,
  ) {
    super('stall', worker, { ms });
  }

  protected inject(ctx: NemesisContext): Promise<void> {
    ctx.pool.worker(this.target).stall(this.ms);
    return Promise.resolve();
  }

  protected restore(): Promise<void> {
    return Promise.resolve();
  }
}
