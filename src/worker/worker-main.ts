/**
 * Entry of a worker process: a real OS process that claims jobs, runs the handler, heartbeats
 * on an independent path and acknowledges — and that the nemesis can pause (SIGSTOP), kill
 * (SIGKILL), cut off (its own Toxiproxy proxy), skew (its `Date`) and stall (its event loop).
 *
 * It imports no orchestrator code. It talks to the controller over the IPC channel: a config
 * message first, then control messages; it streams events back. It exits by itself when the
 * controller goes away, and on SIGTERM it finishes the current job and exits.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { loadQueueAdapter } from '../queue/load-adapter.js';
import { adapterDeadline } from '../queue/adapter-deadline.js';
import { workerBehaviourOf } from '../queue/worker-behaviour.js';
import type { Claim, QueueAdapter, QueueContext } from '../queue/types.js';
import { ResilientConnection } from './connection.js';
import { SkewedClock } from './clock-skew.js';
import { EffectRecorder } from './effects.js';
import { busyWait, handlerPlanOf, runHandler } from './handler.js';
import { EventLoopHeartbeat, ThreadHeartbeat, type Heartbeat } from './heartbeat.js';
import { DEFAULT_STARVATION, StarvationProbe } from './starvation-probe.js';
import { monotonicNow, type ControlMessage, type WorkerConfig, type WorkerEvent } from './types.js';

if (process.send === undefined) {
  process.stderr.write('worker-main must be started by leaseproof with an IPC channel\n');
  process.exit(2);
}

// Events go out in batches, one IPC message per turn of the event loop: at hundreds of jobs a
// second, a message per event costs the workers and the controller more than the jobs do.
let batch: WorkerEvent[] = [];
const flush = (): void => {
  const events = batch;
  batch = [];
  if (events.length > 0 && process.connected) process.send?.({ type: 'events', events });
};
const emit = (event: WorkerEvent): void => {
  if (batch.length === 0) setImmediate(flush);
  batch.push(event);
};

let stopping = false;
let exitReason = 'stopped';
// The claim loop waits for the controller's `go`, or for a reason to stop before it came.
let go: () => void = () => undefined;
const released = new Promise<void>((resolve) => (go = resolve));
const clock = new SkewedClock();
let current: { claim: Claim; abort: AbortController; lost: boolean } | undefined;

const config = await new Promise<WorkerConfig>((resolve) => {
  const onMessage = (message: ControlMessage): void => {
    if (message.type === 'config') {
      process.off('message', onMessage);
      resolve(message.config);
    }
  };
  process.on('message', onMessage);
});

// The controller is gone (it crashed or was killed): nobody will ever stop this worker.
process.on('disconnect', () => {
  stopping = true;
  exitReason = 'controller disconnected';
  current?.abort.abort();
  go();
  setTimeout(() => process.exit(0), 2_000).unref();
});
process.on('SIGTERM', () => {
  stopping = true;
  exitReason = 'SIGTERM';
  go();
});

if (config.clock) clock.set(config.clock);
const adapter: QueueAdapter = await loadQueueAdapter(config.queue);
const behaviour = workerBehaviourOf(adapter);
const watchdog = behaviour.watchdog;
const ctx: QueueContext = {
  workerId: config.workerId,
  lease: config.lease,
  workerNow: () => Date.now(),
};
let reconnecting = false;
const queueConnection = new ResilientConnection(
  config.databaseUrl,
  config.workerId,
  config.statementTimeoutMs ?? config.lease.durationMs,
  // Reconnections only: the first connection is part of getting `ready`.
  () => {
    if (reconnecting) emit({ kind: 'connect', at: monotonicNow() });
    reconnecting = true;
  },
);
const effects = new EffectRecorder(config.effectsUrl, config.workerId);
// A queue call that never settles (an adapter awaiting something other than its statement,
// which the connection's statement timeout bounds) becomes an `info` outcome naming the call,
// instead of a worker stuck for the rest of the run.
const callBoundMs = 2 * (config.statementTimeoutMs ?? config.lease.durationMs) + 1_000;
const bounded = <T>(what: string, work: Promise<T>): Promise<T> =>
  adapterDeadline(work, callBoundMs, `queue adapter "${adapter.name}": ${what}()`);
const sink = {
  emit,
  lost: (token: string) => {
    if (current?.claim.token !== token) return;
    current.lost = true;
    // The watchdog: a lost claim aborts the handler at its next cancellation point.
    if (watchdog === true) current.abort.abort();
  },
};
const heartbeat: Heartbeat =
  behaviour.heartbeat === 'thread'
    ? new ThreadHeartbeat(config, sink)
    : new EventLoopHeartbeat(config, adapter, ctx, sink);

// Control messages are taken only once the heartbeat exists: the controller sends none before
// the worker says it is ready.
process.on('message', (message: ControlMessage) => {
  switch (message.type) {
    case 'clock':
      clock.set(message.skew);
      heartbeat.setClock(message.skew);
      emit({ kind: 'clock', at: monotonicNow(), workerNow: Date.now(), realNow: clock.real() });
      break;
    case 'report-clock':
      emit({ kind: 'clock', at: monotonicNow(), workerNow: Date.now(), realNow: clock.real() });
      break;
    case 'stall':
      emit({ kind: 'stall', at: monotonicNow(), ms: message.ms });
      flush();
      busyWait(message.ms);
      break;
    case 'go':
      go();
      break;
    case 'config':
      break;
  }
});
await heartbeat.ready();
// Both connections are opened before the worker says it is ready: a scenario's fault times
// count from "workers ready", and a fault at 200 ms must find a worker holding a job, not one
// still in its TCP handshake and SCRAM exchange (hundreds of ms on a loaded two-core machine).
// A database that does not answer yet is not fatal: the claim loop reconnects, as it would
// after any fault.
await Promise.all([queueConnection.query('SELECT 1').catch(() => undefined), effects.connect()]);
emit({ kind: 'ready', at: monotonicNow(), pid: process.pid });
// Measures how long the machine keeps this thread from running, so a verdict can tell the
// harness's load from the queue's fault (see starvation-probe.ts).
const probe = new StarvationProbe('main', config.starvation ?? DEFAULT_STARVATION, emit);
probe.start();

/** Runs a queue call, emitting invoke and complete with its outcome. */
async function call(
  kind: 'ack' | 'fail' | 'checkpoint',
  claim: Claim,
  run: () => Promise<boolean>,
): Promise<boolean> {
  const { jobId, token } = claim;
  emit({ kind, phase: 'invoke', at: monotonicNow(), jobId, token });
  try {
    const ok = await bounded(kind, run());
    emit({
      kind,
      phase: 'complete',
      outcome: ok ? 'ok' : 'fail',
      at: monotonicNow(),
      jobId,
      token,
    });
    return ok;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    emit({
      kind,
      phase: 'complete',
      outcome: 'info',
      at: monotonicNow(),
      jobId,
      token,
      error: message,
    });
    // Unknown: the handler goes on, and the next checkpoint or the ack will tell.
    return true;
  }
}

async function work(claim: Claim, claimedAtAbs: number): Promise<void> {
  const abort = new AbortController();
  const job = (current = { claim, abort, lost: false });
  heartbeat.start(claim, claimedAtAbs);
  const { jobId, token } = claim;
  try {
    const plan = handlerPlanOf(claim.payload);
    const result = await runHandler(
      plan,
      abort.signal,
      {
        onUnit: (unit, u) => {
          emit({ kind: 'unit', at: monotonicNow(), jobId, token, unit, effect: u.effect });
          // A synchronous unit blocks the loop the batch would be flushed on: send it now.
          if (u.sync) flush();
        },
        onEffect: async (unit) => {
          const recorded = await effects.record(jobId, token, unit);
          emit({ kind: 'effect', at: monotonicNow(), jobId, token, unit, recorded });
        },
        onAbort: (unit) => emit({ kind: 'abort', at: monotonicNow(), jobId, token, unit }),
        ...(plan.checkpoint && {
          onCheckpoint: async (unit: number) => {
            if (adapter.checkpoint === undefined) return true;
            const cursor = String(unit + 1);
            return call(
              'checkpoint',
              claim,
              () =>
                adapter.checkpoint?.(queueConnection, claim, cursor, ctx) ?? Promise.resolve(true),
            );
          },
        }),
      },
      plan.checkpoint ? Number(claim.cursor ?? 0) || 0 : 0,
    );
    // A scripted transient error (the scenario's `failAttempts`) ends the attempt after its last
    // unit, so the fail comes from a worker that did all the work, as a real late error would.
    if (result.completed && claim.attempt <= plan.failAttempts) {
      throw new Error(
        `handler failed on attempt ${claim.attempt} (failAttempts ${plan.failAttempts})`,
      );
    }
    heartbeat.stop();
    // The known-bad `between-jobs` watchdog looks only here, after the zombie work is done.
    const skip = watchdog === 'between-jobs' && job.lost;
    if (result.completed && !skip) {
      await call('ack', claim, () => adapter.ack(queueConnection, claim, ctx));
    }
  } catch (error) {
    heartbeat.stop();
    const message = error instanceof Error ? error.message : String(error);
    await call('fail', claim, () => adapter.fail(queueConnection, claim, message, ctx));
  } finally {
    current = undefined;
  }
}

// Claims start on `go`, which the pool sends to every worker at once when all are ready: a worker
// forked first must not drain the queue while the last one is still loading, and a scenario's
// time zero (a clock skew "at 0s") must come before the first claim.
await released;
while (!stopping) {
  const sentAt = monotonicNow();
  let claim: Claim | undefined;
  let claimFailed = false;
  try {
    claim = await bounded('claim', adapter.claim(queueConnection, ctx));
    if (claim !== undefined) {
      emit({
        kind: 'claim',
        at: monotonicNow(),
        sentAt,
        outcome: 'ok',
        jobId: claim.jobId,
        token: claim.token,
        attempt: claim.attempt,
      });
    }
  } catch (error) {
    // A claim whose reply was lost may have been granted: `info`. The lease will expire and
    // the job will be claimed again; that is the at-least-once the checkers expect.
    claimFailed = true;
    emit({
      kind: 'claim',
      at: monotonicNow(),
      outcome: 'info',
      error: error instanceof Error ? error.message : String(error),
    });
  }
  if (claim !== undefined) await work(claim, sentAt);
  // After a claim that failed (a broken connection) the next attempt reconnects at once rather
  // than after a poll interval: a worker back from a partition is free, and expired claims are
  // waiting for it. The short pause keeps a refused connection from spinning.
  else if (!stopping)
    await sleep(claimFailed ? Math.min(10, config.lease.pollMs) : config.lease.pollMs);
}

probe.stop();
emit({ kind: 'exit', at: monotonicNow(), reason: exitReason });
flush();
await heartbeat.close();
await Promise.all([queueConnection.close(), effects.close()]);
if (process.connected) process.disconnect();
process.exit(0);
