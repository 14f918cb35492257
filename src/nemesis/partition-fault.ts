import type { ToxicStream } from '../env/types.js';
import { BaseFault } from './base-fault.js';
import type { NemesisContext } from './types.js';

/** How a partition cuts the worker off. */
export type PartitionMode = 'blackhole' | 'reset' | 'down';

/** Which way bytes are cut: both, client→server only, or server→client only. */
export type PartitionDirection = 'both' | 'upstream' | 'downstream';

/**
 * A network partition between one worker and the database, on the worker's own proxy:
 * `blackhole` (Toxiproxy `timeout` 0: bytes vanish, connections hang), `reset` (`reset_peer`),
 * or `down` (the proxy disabled: connections refused and dropped). One-way partitions turn a
 * committed ack into an unknown outcome for the worker.
 */
export class PartitionFault extends BaseFault {
  constructor(
    worker: string,
    private readonly mode: PartitionMode = 'blackhole',
    private readonly direction: PartitionDirection = 'both',
  ) {
    super('partition', worker, { mode, direction });
  }

  private streams(): ToxicStream[] {
    return this.direction === 'both' ? ['upstream', 'downstream'] : [this.direction];
  }

  protected async inject(ctx: NemesisContext): Promise<void> {
    const proxy = ctx.pool.proxy(this.target);
    if (this.mode === 'down') return proxy.setEnabled(false);
    for (const stream of this.streams()) {
      await proxy.addToxic({
        name: `partition-${this.mode}-${stream}`,
        type: this.mode === 'blackhole' ? 'timeout' : 'reset_peer',
        stream,
        attributes: { timeout: 0 },
      });
    }
  }

  protected async restore(ctx: NemesisContext): Promise<void> {
    const proxy = ctx.pool.proxy(this.target);
    if (this.mode === 'down') return proxy.setEnabled(true);
    for (const stream of this.streams())
      await proxy.removeToxic(`partition-${this.mode}-${stream}`);
  }
}
