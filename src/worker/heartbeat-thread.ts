// Entry of the heartbeat worker_thread. It loads the queue adapter itself and extends leases
// over a connection of its own, so nothing the handler's event loop does can delay a beat.
import { parentPort, workerData } from 'node:worker_threads';
import { loadQueueAdapter } from '../libraries/load-adapter.js';
import { adapterDeadline } from '../queue/adapter-deadline.js';
import type { QueueContext } from '../queue/types.js';
import { ResilientConnection } from './connection.js';
import { HeartbeatCore } from './heartbeat-core.js';
import { SkewedClock } from './clock-skew.js';
import type { FromHeartbeatThread, HeartbeatThreadData, ToHeartbeatThread } from './heartbeat.js';
import { DEFAULT_STARVATION, StarvationProbe } from './starvation-probe.js';
import { queueCallBoundMs, statementTimeoutMs } from './statement-bounds.js';

const { config, generation } = workerData as HeartbeatThreadData;
const port = parentPort;
if (port === null) throw new Error('heartbeat-thread must run as a worker_thread');

const post = (message: FromHeartbeatThread): void => port.postMessage(message);
const clock = new SkewedClock();
if (config.clock) clock.set(config.clock);
const adapter = await loadQueueAdapter(config.queue);
await adapter.open?.();
const connection = new ResilientConnection(
  config.databaseUrl,
  config.workerId,
  statementTimeoutMs(config),
);
const ctx: QueueContext = {
  workerId: config.workerId,
  lease: config.lease,
  workerNow: () => Date.now(),
  databaseUrl: config.databaseUrl,
};
// Absent for a queue without lease extension: the core then only watches the lease run out.
const extend = adapter.extend?.bind(adapter);
let core: HeartbeatCore | undefined;
// This thread's own probe: the heartbeat is what a starved CPU costs first. It starts with the
// first claim, so a worker's first word is still `ready`.
const probe = new StarvationProbe('heartbeat', config.starvation ?? DEFAULT_STARVATION, (event) =>
  post({ type: 'event', event }),
);

port.on('message', (message: ToHeartbeatThread) => {
  switch (message.type) {
    case 'start': {
      probe.start();
      core?.stop();
      const { claim } = message;
      core = new HeartbeatCore(
        claim,
        config.lease,
        // Bounded like the worker's other queue calls (worker-main.ts): a hung extend is `info`.
        extend &&
          ((c) =>
            adapterDeadline(
              extend(connection, c, ctx),
              queueCallBoundMs(config),
              `queue adapter "${adapter.name}": extend()`,
            )),
        (event) => post({ type: 'event', event }),
        (reason) => post({ type: 'lost', token: claim.token, reason }),
        message.claimedAtAbs - performance.timeOrigin,
        // The main thread stops a claim by bumping the counter, without a message.
        () => Atomics.load(generation, 0) === message.generation,
        () => (adapter.backendPid ? adapter.backendPid() : connection.backendPid),
      );
      break;
    }
    case 'clock':
      clock.set(message.skew);
      break;
    case 'close':
      core?.stop();
      probe.stop();
      void connection.close().finally(() => {
        post({ type: 'closed' });
        port.close();
      });
      break;
  }
});

post({ type: 'ready' });
