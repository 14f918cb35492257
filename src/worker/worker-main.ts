/**
 * Entry of a worker process: a real OS process that claims jobs, runs the handler, heartbeats
 * on an independent path and acknowledges — and that the nemesis can pause (SIGSTOP), kill
 * (SIGKILL), cut off (its own Toxiproxy proxy), skew (its `Date`) and stall (its event loop).
 *
 * It imports no orchestrator code. It talks to the controller over the IPC channel: a config
 * message first, then control messages; it streams events back. It exits by itself when the
 * controller goes away, and on SIGTERM it stops gracefully: it claims no more, finishes the
 * current job — heartbeating it — within its shutdown timeout, or cancels it then, and exits.
 */
import { loadQueueAdapter } from '../libraries/load-adapter.js';
import { adapterDeadline } from '../queue/adapter-deadline.js';
import { workerBehaviourOf } from '../queue/worker-behaviour.js';
import type { Claim, QueueAdapter, QueueContext } from '../queue/types.js';
import { ResilientConnection } from './connection.js';
import { SkewedClock } from './clock-skew.js';
import { EffectRecorder } from './effects.js';
import { ClaimLoop } from './claim-loop.js';
import { busyWait } from './handler.js';
import { EventLoopHeartbeat, ThreadHeartbeat, type Heartbeat } from './heartbeat.js';
import { DEFAULT_STARVATION, StarvationProbe } from './starvation-probe.js';
import { monotonicNow, type ControlMessage, type WorkerConfig, type WorkerEvent } from './types.js';
import { queueCallBoundMs, statementTimeoutMs } from './statement-bounds.js';
import { WIRE_FORMAT_VERSION } from './wire-format.js';

/**
 * How long a stopping worker waits, once its shutdown timeout has cancelled the handler, for the
 * handler to return: one that checks its signal does at its next unit boundary.
 */
const CANCELLED_HANDLER_GRACE_MS = 1_000;

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
let exitSent = false;
// The claim loop waits for the controller's `go`, or for a reason to stop before it came.
let go: () => void = () => undefined;
const released = new Promise<void>((resolve) => (go = resolve));
const clock = new SkewedClock();
// The loop is made once the adapter is loaded; a signal before that only sets `stopping`.
const worker: { loop?: ClaimLoop } = {};

const config = await new Promise<WorkerConfig>((resolve) => {
  const onMessage = (message: ControlMessage): void => {
    if (message.type !== 'config') return;
    process.off('message', onMessage);
    // A controller of another version would read this worker's events by other rules.
    if (message.wireFormat !== WIRE_FORMAT_VERSION) {
      process.stderr.write(
        `worker speaks wire format ${WIRE_FORMAT_VERSION}, the controller ${String(message.wireFormat)}\n`,
      );
      process.exit(2);
    }
    resolve(message.config);
  };
  process.on('message', onMessage);
});

// The controller is gone (it crashed or was killed): nobody will ever stop this worker.
process.on('disconnect', () => {
  stopping = true;
  exitReason = 'controller disconnected';
  worker.loop?.abort();
  go();
  setTimeout(() => process.exit(0), 2_000).unref();
});
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  exitReason = 'SIGTERM';
  worker.loop?.stop(config.shutdownTimeoutMs);
  go();
  // Past its timeout the loop cancels the handler; one that ignores its cancellation would keep
  // this process — and the job's heartbeat — going for as long as it likes. A stopping worker
  // does not wait for it: exiting ends it, and its job is left to its lease.
  if (config.shutdownTimeoutMs !== undefined) {
    setTimeout(() => {
      // The loop may have ended and be closing its connections: its `exit` is out already.
      if (!exitSent) {
        emit({
          kind: 'exit',
          at: monotonicNow(),
          reason: 'SIGTERM: the handler ignored its cancellation',
        });
        flush();
      }
      process.exit(0);
    }, config.shutdownTimeoutMs + CANCELLED_HANDLER_GRACE_MS).unref();
  }
});

if (config.clock) clock.set(config.clock);
const adapter: QueueAdapter = await loadQueueAdapter(config.queue);
await adapter.open?.();
const behaviour = workerBehaviourOf(adapter);
const ctx: QueueContext = {
  workerId: config.workerId,
  lease: config.lease,
  workerNow: () => Date.now(),
  databaseUrl: config.databaseUrl,
};
let reconnecting = false;
const queueConnection = new ResilientConnection(
  config.databaseUrl,
  config.workerId,
  statementTimeoutMs(config),
  // Reconnections only: the first connection is part of getting `ready`.
  () => {
    if (reconnecting) emit({ kind: 'connect', at: monotonicNow() });
    reconnecting = true;
  },
);
const effects = new EffectRecorder(config.effectsUrl, config.workerId);
const callBoundMs = queueCallBoundMs(config);
const bounded = <T>(what: string, work: Promise<T>): Promise<T> =>
  adapterDeadline(work, callBoundMs, `queue adapter "${adapter.name}": ${what}()`);
const sink = { emit, lost: (token: string) => worker.loop?.lost(token) };
const heartbeat: Heartbeat =
  behaviour.heartbeat === 'thread'
    ? new ThreadHeartbeat(config, sink)
    : new EventLoopHeartbeat(config, adapter, ctx, sink);
const checkpoint = adapter.checkpoint?.bind(adapter);
const loop = new ClaimLoop({
  queue: {
    claim: () => bounded('claim', adapter.claim(queueConnection, ctx)),
    ack: (claim, cancelled) =>
      bounded(
        'ack',
        adapter.ack(queueConnection, claim, cancelled ? { ...ctx, handlerCancelled: true } : ctx),
      ),
    fail: (claim, error) => bounded('fail', adapter.fail(queueConnection, claim, error, ctx)),
    ...(checkpoint && {
      checkpoint: (claim: Claim, cursor: string) =>
        bounded('checkpoint', checkpoint(queueConnection, claim, cursor, ctx)),
    }),
    // An adapter with connections of its own (a worker program) knows which one a call used.
    backendPid: adapter.backendPid
      ? () => adapter.backendPid?.()
      : () => queueConnection.backendPid,
  },
  heartbeat,
  watchdog: behaviour.watchdog,
  shutdown: behaviour.shutdown,
  pollMs: config.lease.pollMs,
  emit,
  effect: (jobId, token, unit) => effects.record(jobId, token, unit),
  onSyncUnit: flush,
});
worker.loop = loop;

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
emit({ kind: 'ready', at: monotonicNow(), pid: process.pid, wireFormat: WIRE_FORMAT_VERSION });
// Measures how long the machine keeps this thread from running, so a verdict can tell the
// harness's load from the queue's fault (see starvation-probe.ts).
const probe = new StarvationProbe('main', config.starvation ?? DEFAULT_STARVATION, emit);
probe.start();

// Claims start on `go`, which the pool sends to every worker at once when all are ready: a worker
// forked first must not drain the queue while the last one is still loading, and a scenario's
// time zero (a clock skew "at 0s") must come before the first claim.
await released;
if (stopping) loop.stop(config.shutdownTimeoutMs);
await loop.run();

probe.stop();
emit({ kind: 'exit', at: monotonicNow(), reason: exitReason });
exitSent = true;
flush();
await heartbeat.close();
await Promise.all([queueConnection.close(), effects.close()]);
if (process.connected) process.disconnect();
process.exit(0);
