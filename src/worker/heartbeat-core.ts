import type { Claim, LeaseSettings } from '../queue/types.js';
import type { WorkerEvent } from './types.js';
import { monotonicNow } from './types.js';

/** Extends a claim: true when still held. */
export type ExtendFn = (claim: Claim) => Promise<boolean>;

/**
 * The heartbeat of one claim, independent of where it runs (its own thread, or — in the
 * known-bad variant — the handler's event loop).
 *
 * Every `heartbeatMs` it extends the lease. It reasons about the deadline only on the
 * monotonic clock and only as an interval: the lease is held for `extendByMs` after the moment
 * a successful extension was *sent* (the server's deadline can only be later than that). When
 * an extension returns lost, or that interval runs out without a confirmed extension (a
 * partition, a pause), the claim is lost and `onLost` fires once.
 *
 * A queue without lease extension (`extend` undefined) gets no beats, only the watchdog: the
 * claim is given up when the lease runs out on the monotonic clock, as nothing can renew it.
 */
export class HeartbeatCore {
  private timer: NodeJS.Timeout | undefined;
  private deadlineTimer: NodeJS.Timeout | undefined;
  private inFlight = false;
  private heldUntil = 0;
  private lost = false;

  constructor(
    private readonly claim: Claim,
    private readonly lease: LeaseSettings,
    private readonly extend: ExtendFn | undefined,
    private readonly emit: (event: WorkerEvent) => void,
    private readonly onLost: (reason: string) => void,
    /** When the claim statement was sent (performance.now()); the lease runs from no earlier. */
    claimedAt: number,
    /**
     * Whether the worker still works on this claim. The heartbeat thread learns that a job ended
     * from shared memory rather than from a message (see `ThreadHeartbeat`), so its timers ask
     * this before they beat or watch the deadline: a claim the worker is done with stops them
     * silently, as `stop()` would have.
     */
    private readonly current: () => boolean = () => true,
    /** The backend pid of the heartbeat's connection, reported on each extension's answer. */
    private readonly backendPid: () => number | undefined = () => undefined,
  ) {
    this.heldUntil = claimedAt + lease.durationMs;
    this.armDeadline();
    if (extend !== undefined) {
      this.timer = setInterval(() => void this.beat(extend), lease.heartbeatMs);
    }
  }

  /** Stops beating (the job is done or was given up); idempotent. */
  stop(): void {
    clearInterval(this.timer);
    clearTimeout(this.deadlineTimer);
    this.timer = undefined;
    this.deadlineTimer = undefined;
  }

  private async beat(extend: ExtendFn): Promise<void> {
    if (this.lost || this.inFlight || this.timer === undefined) return;
    if (!this.current()) return this.stop();
    if (this.checkDeadline()) return;
    this.inFlight = true;
    const { jobId, token } = this.claim;
    const sentAt = performance.now();
    this.emit({ kind: 'extend', phase: 'invoke', at: monotonicNow(), jobId, token });
    try {
      const held = await extend(this.claim);
      this.emit({
        kind: 'extend',
        phase: 'complete',
        outcome: held ? 'ok' : 'fail',
        at: monotonicNow(),
        jobId,
        token,
        ...this.pid(),
      });
      if (!held) this.declareLost('extension returned lost (0 rows)');
      else if (!this.lost) {
        this.heldUntil = Math.max(this.heldUntil, sentAt + this.lease.extendByMs);
        this.armDeadline();
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.emit({
        kind: 'extend',
        phase: 'complete',
        outcome: 'info',
        at: monotonicNow(),
        jobId,
        token,
        error: message,
        ...this.pid(),
      });
      this.checkDeadline();
    } finally {
      this.inFlight = false;
    }
  }

  private pid(): { pid?: number } {
    const pid = this.backendPid();
    return pid === undefined ? {} : { pid };
  }

  private armDeadline(): void {
    clearTimeout(this.deadlineTimer);
    const wait = Math.max(0, this.heldUntil - performance.now());
    this.deadlineTimer = setTimeout(() => {
      if (this.current()) this.checkDeadline();
      else this.stop();
    }, wait + 1);
  }

  /** Declares the claim lost when the held interval has run out; true when it has. */
  private checkDeadline(): boolean {
    if (this.lost) return true;
    if (performance.now() < this.heldUntil) return false;
    this.declareLost('lease ran out without a confirmed extension');
    return true;
  }

  private declareLost(reason: string): void {
    if (this.lost) return;
    this.lost = true;
    this.stop();
    const { jobId, token } = this.claim;
    this.emit({ kind: 'lost', at: monotonicNow(), jobId, token, reason });
    this.onLost(reason);
  }
}
