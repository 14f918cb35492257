/**
 * The worker's claim loop: claim a job (or wait a poll interval), run its handler with the
 * heartbeat beating, and acknowledge it — or fail it. The watchdog lives here too: a claim the
 * heartbeat declares lost aborts the handler at its next cancellation point.
 *
 * It is the one loop of both kinds of worker: the OS process (`worker-main.ts`, over real
 * connections) and the tuning simulation (`src/sim/`, over an in-memory queue on fake timers). So
 * it reads time only through `monotonicNow()` and waits only through the global `setTimeout`,
 * both of which @sinonjs/fake-timers replaces.
 */
import type { Claim, WorkerBehaviour } from '../queue/types.js';
import { handlerPlanOf, runHandler, sleep } from './handler.js';
import type { Heartbeat } from './heartbeat.js';
import { monotonicNow, type WorkerEvent } from './types.js';

/** The queue calls the loop makes, already bound to a connection and bounded in time. */
export interface ClaimLoopQueue {
  /** A granted claim, or undefined when nothing is available. */
  claim: () => Promise<Claim | undefined>;
  /** True when the ack committed; `cancelled`: the loop had cancelled the handler first. */
  ack: (claim: Claim, cancelled: boolean) => Promise<boolean>;
  /** True when the fail committed. */
  fail: (claim: Claim, error: string) => Promise<boolean>;
  /** True when the cursor committed; absent: the queue keeps no cursors. */
  checkpoint?: (claim: Claim, cursor: string) => Promise<boolean>;
  /**
   * The backend pid of the connection these calls run on, read when a call returns; absent
   * where there is none (the simulation). Reported on each completion so a checker can find the
   * call's writes in the audit by identity, not by time.
   */
  backendPid?: () => number | undefined;
}

/** What a claim loop runs on. */
export interface ClaimLoopOptions {
  /** The queue. */
  queue: ClaimLoopQueue;
  /** The heartbeat of the current claim. */
  heartbeat: Pick<Heartbeat, 'start' | 'stop'>;
  /** What a lost claim does to the handler (see `WorkerBehaviour.watchdog`). */
  watchdog: WorkerBehaviour['watchdog'];
  /** What a graceful stop does to the heartbeat (see `WorkerBehaviour.shutdown`); default: keeps it. */
  shutdown?: WorkerBehaviour['shutdown'];
  /** How long an idle worker waits between claims. */
  pollMs: number;
  /** Where events go. */
  emit: (event: WorkerEvent) => void;
  /** Performs a unit's effect; resolves whether it was recorded. */
  effect: (jobId: string, token: string, unit: number) => Promise<boolean>;
  /** Called when a synchronous unit starts (a process sends its event batch first). */
  onSyncUnit?: () => void;
}

interface CurrentJob {
  claim: Claim;
  abort: AbortController;
  lost: boolean;
}

/** One worker's loop; `run` until `stop`. */
export class ClaimLoop {
  private current: CurrentJob | undefined;
  private stopping = false;
  private shutdownTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly options: ClaimLoopOptions) {}

  /** The heartbeat's word that a claim is lost: the watchdog acts on it. */
  lost(token: string): void {
    const current = this.current;
    if (current?.claim.token !== token) return;
    current.lost = true;
    // The watchdog: a lost claim aborts the handler at its next cancellation point.
    if (this.options.watchdog === true) current.abort.abort();
  }

  /**
   * A graceful stop (SIGTERM): claims no more and ends the loop after the current job. The
   * handler may finish, with its heartbeat beating, for `timeoutMs`; then it is cancelled (at
   * its next cancellation point), and the job it leaves is recovered once its lease expires.
   * Without `timeoutMs` it may take as long as it takes. Only the first call counts.
   */
  stop(timeoutMs?: number): void {
    if (this.stopping) return;
    this.stopping = true;
    // The known-bad `stops-heartbeat`: "we are shutting down" silences the heartbeat of the job
    // that is still being finished.
    if (this.options.shutdown === 'stops-heartbeat') this.options.heartbeat.stop();
    if (timeoutMs !== undefined) {
      this.shutdownTimer = setTimeout(() => this.current?.abort.abort(), timeoutMs);
    }
  }

  /** Ends the loop and aborts the current handler (the controller is gone). */
  abort(): void {
    this.stopping = true;
    this.current?.abort.abort();
  }

  /** Claims and works until stopped. */
  async run(): Promise<void> {
    const { queue, emit, pollMs } = this.options;
    while (!this.stopping) {
      const sentAt = monotonicNow();
      let claim: Claim | undefined;
      let claimFailed = false;
      try {
        claim = await queue.claim();
        if (claim !== undefined) {
          emit({
            kind: 'claim',
            at: monotonicNow(),
            sentAt,
            outcome: 'ok',
            jobId: claim.jobId,
            token: claim.token,
            attempt: claim.attempt,
            ...this.pid(),
          });
        }
      } catch (error) {
        // A claim whose reply was lost may have been granted: `info`. The lease will expire and
        // the job will be claimed again; that is the at-least-once the checkers expect.
        claimFailed = true;
        emit({ kind: 'claim', at: monotonicNow(), outcome: 'info', error: messageOf(error) });
      }
      if (claim !== undefined) await this.work(claim, sentAt);
      // After a claim that failed (a broken connection) the next attempt reconnects at once
      // rather than after a poll interval: a worker back from a partition is free, and expired
      // claims are waiting for it. The short pause keeps a refused connection from spinning.
      else if (!this.stopping) await sleep(claimFailed ? Math.min(10, pollMs) : pollMs);
    }
    clearTimeout(this.shutdownTimer);
  }

  /** Runs a queue call, emitting invoke and complete with its outcome. */
  private async call(
    kind: 'ack' | 'fail' | 'checkpoint',
    claim: Claim,
    run: () => Promise<boolean>,
  ): Promise<boolean> {
    const { emit } = this.options;
    const { jobId, token } = claim;
    emit({ kind, phase: 'invoke', at: monotonicNow(), jobId, token });
    try {
      const ok = await run();
      emit({
        kind,
        phase: 'complete',
        outcome: ok ? 'ok' : 'fail',
        at: monotonicNow(),
        jobId,
        token,
        ...this.pid(),
      });
      return ok;
    } catch (error) {
      emit({
        kind,
        phase: 'complete',
        outcome: 'info',
        at: monotonicNow(),
        jobId,
        token,
        error: messageOf(error),
        ...this.pid(),
      });
      // Unknown: the handler goes on, and the next checkpoint or the ack will tell.
      return true;
    }
  }

  private pid(): { pid?: number } {
    const pid = this.options.queue.backendPid?.();
    return pid === undefined ? {} : { pid };
  }

  private async work(claim: Claim, claimedAtAbs: number): Promise<void> {
    const { queue, heartbeat, emit, watchdog } = this.options;
    const abort = new AbortController();
    const job: CurrentJob = { claim, abort, lost: false };
    this.current = job;
    heartbeat.start(claim, claimedAtAbs);
    const { jobId, token } = claim;
    try {
      const plan = handlerPlanOf(claim.payload);
      const checkpoint = queue.checkpoint;
      const result = await runHandler(
        plan,
        abort.signal,
        {
          onUnit: (unit, u) => {
            emit({ kind: 'unit', at: monotonicNow(), jobId, token, unit, effect: u.effect });
            // A synchronous unit blocks the loop the batch would be flushed on: send it now.
            if (u.sync) this.options.onSyncUnit?.();
          },
          onEffect: async (unit) => {
            const recorded = await this.options.effect(jobId, token, unit);
            emit({ kind: 'effect', at: monotonicNow(), jobId, token, unit, recorded });
          },
          onAbort: (unit) => emit({ kind: 'abort', at: monotonicNow(), jobId, token, unit }),
          onAbortIgnored: (unit) =>
            emit({ kind: 'abort-ignored', at: monotonicNow(), jobId, token, unit }),
          ...(plan.checkpoint && {
            onCheckpoint: async (unit: number) => {
              if (checkpoint === undefined) return true;
              const cursor = String(unit + 1);
              return this.call('checkpoint', claim, () => checkpoint(claim, cursor));
            },
          }),
        },
        plan.checkpoint ? Number(claim.cursor ?? 0) || 0 : 0,
      );
      // A scripted transient error (the scenario's `failAttempts`) ends the attempt after its
      // last unit, so the fail comes from a worker that did all the work, as a real late error
      // would.
      if (result.completed && claim.attempt <= plan.failAttempts) {
        throw new Error(
          `handler failed on attempt ${claim.attempt} (failAttempts ${plan.failAttempts})`,
        );
      }
      heartbeat.stop();
      // The known-bad `between-jobs` watchdog looks only here, after the zombie work is done.
      const skip = watchdog === 'between-jobs' && job.lost;
      // A handler that ignored its cancellation comes back completed: its ack says so.
      const cancelled = abort.signal.aborted;
      if (result.completed && !skip) {
        await this.call('ack', claim, () => queue.ack(claim, cancelled));
      }
    } catch (error) {
      heartbeat.stop();
      const message = messageOf(error);
      await this.call('fail', claim, () => queue.fail(claim, message));
    } finally {
      this.current = undefined;
    }
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
