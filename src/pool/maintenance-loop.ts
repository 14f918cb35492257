/**
 * Runs a queue library's background sweep (`QueueAdapter.maintenance`) during a run: one pass
 * every `intervalMs`, on a connection of its own that reaches the database directly, so that
 * worker faults never touch it — the library's maintenance as a healthy node would run it.
 */
import type { RunDatabase } from '../env/types.js';
import type { QueueMaintenance, SetupContext } from '../queue/types.js';
import { ResilientConnection } from '../worker/connection.js';

/** `application_name` of the sweep's connection: its writes are nobody's claim. */
export const MAINTENANCE_APP = 'leaseproof-maintenance';

/**
 * One pass of the sweep, on the controller's clock (`Date.now()`, like the nemesis's records):
 * when its timer was due, when it ran, when it ended. A pass runs in the controller's event
 * loop, which a loaded machine (or a busy controller) runs late; the lateness is the harness's,
 * and a history records it so that I8 does not blame the queue for a stall it made longer.
 */
export interface SweepPass {
  /** When the pass was due: the previous pass's end (or the start) + `intervalMs`. */
  scheduledAt: number;
  /** When it started. */
  startedAt: number;
  /** When it ended. */
  endedAt: number;
}

/** A running sweep; `stop` is idempotent and waits for a pass under way. */
export class MaintenanceLoop {
  private timer: NodeJS.Timeout | undefined;
  private pass: Promise<void> = Promise.resolve();
  private stopping: Promise<void> | undefined;
  private passes = 0;
  private failures = 0;
  private lastError: string | undefined;

  private constructor(
    private readonly maintenance: QueueMaintenance,
    private readonly ctx: SetupContext,
    private readonly connection: ResilientConnection,
    readonly intervalMs: number,
    private readonly onPass: (pass: SweepPass) => void,
  ) {}

  /**
   * Starts sweeping `database` every `maintenance.intervalMs(ctx.lease)`; `onPass` hears of
   * each pass once it ended (a recorder's `recordSweep`).
   */
  static start(
    database: RunDatabase,
    maintenance: QueueMaintenance,
    ctx: SetupContext,
    onPass: (pass: SweepPass) => void = () => undefined,
  ): MaintenanceLoop {
    const intervalMs = maintenance.intervalMs(ctx.lease, ctx.settings);
    if (!Number.isFinite(intervalMs) || intervalMs <= 0) {
      throw new RangeError(
        `queue maintenance "${maintenance.description}": intervalMs() gave ${intervalMs}, ` +
          'expected a positive number of ms',
      );
    }
    // A statement bounded like a worker's, but never shorter than a second: a sweep over many
    // rows on a loaded machine is not a lost connection.
    const timeoutMs = Math.max(1_000, 2 * ctx.lease.durationMs);
    const connection = new ResilientConnection(database.url, MAINTENANCE_APP, timeoutMs);
    // A sweep in the queue's own code (a worker program) opens its connection by this name too.
    const sweepCtx = { ...ctx, applicationName: MAINTENANCE_APP };
    const loop = new MaintenanceLoop(maintenance, sweepCtx, connection, intervalMs, onPass);
    loop.schedule();
    return loop;
  }

  /** Passes run, passes failed, and the last failure's message. */
  stats(): { passes: number; failures: number; lastError?: string } {
    return {
      passes: this.passes,
      failures: this.failures,
      ...(this.lastError !== undefined && { lastError: this.lastError }),
    };
  }

  /** Stops sweeping, waits for a pass under way, closes the connection. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      clearTimeout(this.timer);
      this.timer = undefined;
      await this.pass;
      await this.connection.close();
    })();
    return this.stopping;
  }

  // One pass at a time, the next `intervalMs` after the last one ended (a slow pass does not
  // pile passes up behind it, as a library's own `setTimeout` chain would not).
  private schedule(): void {
    const scheduledAt = Date.now() + this.intervalMs;
    this.timer = setTimeout(() => {
      this.pass = this.runPass(scheduledAt).finally(() => {
        if (this.stopping === undefined) this.schedule();
      });
    }, this.intervalMs);
  }

  private async runPass(scheduledAt: number): Promise<void> {
    const startedAt = Date.now();
    this.passes += 1;
    try {
      await this.maintenance.run(this.connection, this.ctx);
    } catch (error) {
      this.failures += 1;
      this.lastError = error instanceof Error ? error.message : String(error);
    }
    this.onPass({ scheduledAt, startedAt, endedAt: Date.now() });
  }
}
