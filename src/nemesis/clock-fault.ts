import { WorkerFault } from './worker-fault.js';
import type { NemesisContext } from './types.js';

/**
 * Skews a worker's `Date` (offset, drift): a host whose clock is wrong. Healing sets it right
 * again. A correct queue does not notice; one that computes deadlines on the worker does.
 */
export class ClockFault extends WorkerFault {
  constructor(
    worker: string,
    private readonly offsetMs: number,
    private readonly driftPpm = 0,
  ) {
    super('clock', worker, { offsetMs, driftPpm });
  }

  protected inject(ctx: NemesisContext): Promise<void> {
    ctx.pool.worker(this.target).setClock({ offsetMs: this.offsetMs, driftPpm: this.driftPpm });
    return Promise.resolve();
  }

  protected restore(ctx: NemesisContext): Promise<void> {
    const worker = ctx.pool.worker(this.target);
    if (worker.running) worker.setClock({ offsetMs: 0, driftPpm: 0 });
    return Promise.resolve();
  }
}
