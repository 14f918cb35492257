import type { ToxicStream, ToxicType } from '../env/types.js';
import type { FaultKind } from '../history/types.js';
import { BaseFault } from './base-fault.js';
import type { NemesisContext } from './types.js';

/** Which way a toxic acts: both ways, client→server only, or server→client only. */
export type ToxicDirection = 'both' | 'upstream' | 'downstream';

let sequence = 0;

/**
 * A Toxiproxy toxic on one worker's own proxy, on one or both streams, removed on heal. The
 * base of the latency, bandwidth and slicer faults, which differ only in the toxic's type and
 * attributes. Toxics act on open connections too, so the worker's pooled connections slow down
 * at once.
 */
export abstract class ToxicFault extends BaseFault {
  // Unique per fault, not per kind: two overlapping latency faults on one worker must not
  // collide on the proxy (Toxiproxy refuses a second toxic of the same name).
  private readonly toxicName = `leaseproof-${++sequence}`;

  constructor(
    kind: FaultKind,
    worker: string,
    private readonly type: ToxicType,
    private readonly attributes: Record<string, number>,
    private readonly direction: ToxicDirection,
    detail: Record<string, unknown>,
  ) {
    super(kind, worker, { ...detail, direction });
  }

  private streams(): ToxicStream[] {
    return this.direction === 'both' ? ['upstream', 'downstream'] : [this.direction];
  }

  protected async inject(ctx: NemesisContext): Promise<void> {
    const proxy = ctx.pool.proxy(this.target);
    for (const stream of this.streams()) {
      await proxy.addToxic({
        name: `${this.toxicName}-${stream}`,
        type: this.type,
        stream,
        attributes: this.attributes,
      });
    }
  }

  protected async restore(ctx: NemesisContext): Promise<void> {
    const proxy = ctx.pool.proxy(this.target);
    for (const stream of this.streams()) await proxy.removeToxic(`${this.toxicName}-${stream}`);
  }
}
