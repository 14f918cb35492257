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
  private applied = false;

  constructor(
    readonly kind: FaultKind,
    readonly target: string,
    readonly detail: Record<string, unknown> = {},
  ) {}

  async start(ctx: NemesisContext): Promise<void> {
    // A schedule may aim a fault at a worker that is down (crashed, not restarted yet): there
    // is no process to pause, stall or skew. The window is recorded, marked as having had no
    // effect — so it explains nothing in a verdict — and it is not undone at its end.
    const noEffect = this.noEffect(ctx);
    ctx.record({
      phase: 'start',
      fault: this.kind,
      target: this.target,
      id: this.id,
      at: Date.now(),
      detail: noEffect === undefined ? this.detail : { ...this.detail, noEffect },
    });
    this.active = true;
    if (noEffect !== undefined) return;
    this.applied = true;
    await this.inject(ctx);
  }

  async heal(ctx: NemesisContext): Promise<void> {
    if (!this.active) return;
    this.active = false;
    if (this.applied) await this.restore(ctx);
    ctx.record({
      phase: 'end',
      fault: this.kind,
      target: this.target,
      id: this.id,
      at: Date.now(),
    });
  }

  /** Why the fault can do nothing now (its target is down), or undefined when it can. */
  protected noEffect(_ctx: NemesisContext): string | undefined {
    return undefined;
  }

  /** Does the damage. */
  protected abstract inject(ctx: NemesisContext): Promise<void>;
  /** Undoes it. */
  protected abstract restore(ctx: NemesisContext): Promise<void>;
}
