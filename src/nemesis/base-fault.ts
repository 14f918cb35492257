import type { FaultKind } from '../history/types.js';
import type { Fault, NemesisContext } from './types.js';

let sequence = 0;

/**
 * Records start and end around a fault's own inject/heal, and makes heal idempotent: a fault
 * may be healed by its own timer and again by the run's final "heal everything".
 */
export abstract class BaseFault implements Fault {
  private readonly id = `f${++sequence}`;
  private active = false;

  constructor(
    readonly kind: FaultKind,
    readonly target: string,
    readonly detail: Record<string, unknown> = {},
  ) {}

  async start(ctx: NemesisContext): Promise<void> {
    ctx.record({
      phase: 'start',
      fault: this.kind,
      target: this.target,
      id: this.id,
      at: Date.now(),
      detail: this.detail,
    });
    this.active = true;
    await this.inject(ctx);
  }

  async heal(ctx: NemesisContext): Promise<void> {
    if (!this.active) return;
    this.active = false;
    await this.restore(ctx);
    ctx.record({
      phase: 'end',
      fault: this.kind,
      target: this.target,
      id: this.id,
      at: Date.now(),
    });
  }

  /** Does the damage. */
  protected abstract inject(ctx: NemesisContext): Promise<void>;
  /** Undoes it. */
  protected abstract restore(ctx: NemesisContext): Promise<void>;
}
