import { BaseFault } from './base-fault.js';
import type { NemesisContext } from './types.js';

/**
 * A fault on a worker process (pause, stall, clock, crash): it has no effect while that
 * worker is down, between a crash and its restart.
 */
export abstract class WorkerFault extends BaseFault {
  protected override noEffect(ctx: NemesisContext): string | undefined {
    return ctx.pool.worker(this.target).running
      ? undefined
      : `worker ${this.target} is down (crashed, not restarted yet)`;
  }
}
