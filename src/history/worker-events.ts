import type { ReceivedEvent } from '../pool/worker-process.js';
import type { WorkerHistoryEvent } from './types.js';

/**
 * Moves a worker's event onto the database clock and into the history's shape.
 *
 * `event.at` is the worker's monotonic wall time (never its `Date`, which the clock-skew nemesis
 * corrupts); on the controller's host that is the controller's clock, so subtracting the measured
 * controller-to-database offset puts it on the database clock. The controller's receive time is
 * not used: IPC batching and a busy controller delay it by an unknown amount.
 *
 * Kinds are kept as the worker named them. A claim, which the worker reports only once it has an
 * answer, becomes a completion (`phase: 'complete'`) like the other operations' answers. What has
 * no field of its own goes into `detail`: an error or reason, a `ready` worker's pid, a stall's
 * length, a clock's skew, and an effect the worker could not record.
 */
export function workerHistoryEvent(
  received: ReceivedEvent,
  clockOffsetMs: number,
): WorkerHistoryEvent {
  const { event, workerId } = received;
  const base = {
    type: 'worker' as const,
    t: event.at - clockOffsetMs,
    worker: workerId,
    kind: event.kind,
  };
  switch (event.kind) {
    case 'ready':
      return {
        ...base,
        detail: `pid ${event.pid}`,
        ...(event.startsOnGo === true && { startsOnGo: true as const }),
      };
    case 'claim':
      return {
        ...base,
        phase: 'complete',
        outcome: event.outcome,
        ...(event.sentAt !== undefined && { invokedT: event.sentAt - clockOffsetMs }),
        ...(event.jobId !== undefined && { job: event.jobId }),
        ...(event.token !== undefined && { token: event.token }),
        ...(event.error !== undefined && { detail: event.error }),
        ...(event.pid !== undefined && { pid: event.pid }),
      };
    case 'extend':
    case 'ack':
    case 'fail':
    case 'checkpoint':
      return {
        ...base,
        phase: event.phase,
        ...(event.outcome !== undefined && { outcome: event.outcome }),
        job: event.jobId,
        token: event.token,
        ...(event.error !== undefined && { detail: event.error }),
        ...(event.pid !== undefined && { pid: event.pid }),
      };
    case 'lost':
      return { ...base, job: event.jobId, token: event.token, detail: event.reason };
    case 'abort':
    case 'abort-ignored':
    case 'unit':
      return { ...base, job: event.jobId, token: event.token, unit: event.unit };
    case 'effect':
      return {
        ...base,
        job: event.jobId,
        token: event.token,
        unit: event.unit,
        ...(!event.recorded && { detail: 'not recorded' }),
      };
    case 'stall':
      return { ...base, detail: `${event.ms}ms` };
    case 'connect':
      return base;
    case 'starved':
      return {
        ...base,
        thread: event.thread,
        ms: event.ms,
        detail:
          `${event.thread} thread ran ${event.lateMs}ms late` +
          (event.waitMs === undefined ? '' : `, ${event.waitMs}ms of it waiting for a CPU`),
      };
    case 'clock':
      return { ...base, detail: `skew ${event.workerNow - event.realNow}ms` };
    case 'error':
      return { ...base, detail: event.message };
    case 'exit':
      return { ...base, detail: event.reason };
  }
}
