import type { DatabaseProxy, ToxicStream } from '../env/types.js';
import { BaseFault } from './base-fault.js';
import type { NemesisContext } from './types.js';

/** How a partition cuts the worker off. */
export type PartitionMode = 'blackhole' | 'reset' | 'down';

/** Which way bytes are cut: both, client→server only, or server→client only. */
export type PartitionDirection = 'both' | 'upstream' | 'downstream';

let sequence = 0;
// Partitions in `down` mode holding each proxy disabled: the proxy comes back only when the last
// of overlapping partitions heals, not when the first one does.
const downHolds = new WeakMap<DatabaseProxy, number>();

/**
 * A network partition between one worker and the database, on the worker's own proxy:
 * `blackhole` (Toxiproxy `timeout` 0: bytes vanish, connections hang), `reset` (`reset_peer`),
 * or `down` (the proxy disabled: connections refused and dropped). One-way partitions turn a
 * committed ack into an unknown outcome for the worker.
 *
 * Overlapping partitions of one worker (explore draws them) each hold their own toxic, named
 * per fault, and heal only it: Toxiproxy refuses a second toxic of one name (HTTP 409), and a
 * shared name would let the first heal end the second partition early.
 */
export class PartitionFault extends BaseFault {
  private readonly toxicName = `partition-${++sequence}`;

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
    if (this.mode === 'down') {
      downHolds.set(proxy, (downHolds.get(proxy) ?? 0) + 1);
      return proxy.setEnabled(false);
    }
    for (const stream of this.streams()) {
      await proxy.addToxic({
        name: `${this.toxicName}-${this.mode}-${stream}`,
        type: this.mode === 'blackhole' ? 'timeout' : 'reset_peer',
        stream,
        attributes: { timeout: 0 },
      });
    }
  }

  protected async restore(ctx: NemesisContext): Promise<void> {
    const proxy = ctx.pool.proxy(this.target);
    if (this.mode === 'down') {
      const holds = (downHolds.get(proxy) ?? 1) - 1;
      downHolds.set(proxy, holds);
      return holds > 0 ? undefined : proxy.setEnabled(true);
    }
    for (const stream of this.streams())
      await proxy.removeToxic(`${this.toxicName}-${this.mode}-${stream}`);
  }
}
