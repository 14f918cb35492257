import { Worker } from 'node:worker_threads';
import type { Claim, QueueAdapter, QueueContext } from '../queue/types.js';
import { HeartbeatCore } from './heartbeat-core.js';
import { ResilientConnection } from './connection.js';
import type { ClockSkew, WorkerConfig, WorkerEvent } from './types.js';
import { statementTimeoutMs } from './statement-bounds.js';

/** Runs the heartbeat of the current claim, wherever it lives. */
export interface Heartbeat {
  /** Starts beating for `claim`, claimed at monotonic wall time `claimedAtAbs`. */
  start(claim: Claim, claimedAtAbs: number): void;
  /** Stops beating for the current claim. */
  stop(): void;
  /** Passes a clock change on (the thread has a `Date` of its own). */
  setClock(skew: ClockSkew): void;
  /** Resolves once it can beat (its thread has loaded the adapter). */
  ready(): Promise<void>;
  /** Closes its connection and thread. */
  close(): Promise<void>;
}

/** Messages from the main thread to the heartbeat thread. */
export type ToHeartbeatThread =
  /** `generation`: the value of `HeartbeatThreadData.generation[0]` while this claim is worked. */
  | { type: 'start'; claim: Claim; claimedAtAbs: number; generation: number }
  | { type: 'clock'; skew: ClockSkew }
  | { type: 'close' };

/** What the heartbeat thread starts with (its `workerData`). */
export interface HeartbeatThreadData {
  /** The worker's configuration. */
  config: WorkerConfig;
  /**
   * One counter in shared memory, bumped by the main thread when a claim starts and when it
   * stops: the thread's claim is still worked while the counter equals its `generation`.
   */
  generation: Int32Array;
}

/** Messages from the heartbeat thread. */
export type FromHeartbeatThread =
  | { type: 'ready' }
  | { type: 'event'; event: WorkerEvent }
  | { type: 'lost'; token: string; reason: string }
  | { type: 'closed' };

/** What both kinds of heartbeat report to the worker. */
export interface HeartbeatSink {
  emit(event: WorkerEvent): void;
  lost(token: string, reason: string): void;
}

/**
 * The heartbeat on the handler's own event loop: the known-bad `main-thread-heartbeat`
 * variant. A blocked event loop (a synchronous unit, a stall) stops it.
 */
export class EventLoopHeartbeat implements Heartbeat {
  private core: HeartbeatCore | undefined;
  private readonly connection: ResilientConnection;

  constructor(
    private readonly config: WorkerConfig,
    private readonly adapter: QueueAdapter,
    private readonly ctx: QueueContext,
    private readonly sink: HeartbeatSink,
  ) {
    this.connection = new ResilientConnection(
      config.databaseUrl,
      config.workerId,
      statementTimeoutMs(config),
    );
  }

  start(claim: Claim, claimedAtAbs: number): void {
    this.stop();
    const extend = this.adapter.extend?.bind(this.adapter);
    this.core = new HeartbeatCore(
      claim,
      this.config.lease,
      extend && ((c) => extend(this.connection, c, this.ctx)),
      (event) => this.sink.emit(event),
      (reason) => this.sink.lost(claim.token, reason),
      claimedAtAbs - performance.timeOrigin,
      () => true,
      () => this.connection.backendPid,
    );
  }

  stop(): void {
    this.core?.stop();
    this.core = undefined;
  }

  setClock(): void {
    // Same thread as the worker: its Date is already skewed.
  }

  ready(): Promise<void> {
    return Promise.resolve();
  }

  async close(): Promise<void> {
    this.stop();
    await this.connection.close();
  }
}

/**
 * The heartbeat on an independent path: a worker_thread with its own connection through the
 * same proxy, so a blocked event loop in the handler cannot stop the lease from being extended.
 *
 * A start is a message (the thread must arm its timers), a stop only a write to shared memory
 * that the thread's timers read before they act: at hundreds of jobs a second, waking the
 * thread to clear timers that would not fire for a second cost each job a context switch. The
 * write is also seen at once, where a message waited for the thread's next turn.
 */
export class ThreadHeartbeat implements Heartbeat {
  private readonly thread: Worker;
  private readonly loaded: Promise<void>;
  private readonly generation = new Int32Array(new SharedArrayBuffer(4));

  constructor(config: WorkerConfig, sink: HeartbeatSink) {
    const fromSource = import.meta.url.endsWith('.ts');
    const entry = new URL(`./heartbeat-thread.${fromSource ? 'ts' : 'js'}`, import.meta.url);
    // A thread does not inherit the process's tsx loader (and Node 20 ignores an --import in a
    // thread for its entry): a small bootstrap registers tsx in the thread, then loads the
    // entry, so a TypeScript entry and a user's .ts adapter load there too.
    // Both tsx hooks, as bin/leaseproof.js registers them: a `.ts` adapter in a CommonJS project
    // needs the CommonJS one.
    const bootstrap =
      `Promise.all([import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}), ` +
      `import(${JSON.stringify(import.meta.resolve('tsx/cjs/api'))})])` +
      `.then(([esm, cjs]) => { esm.register(); cjs.register(); ` +
      `return import(${JSON.stringify(entry.href)}); })`;
    const workerData: HeartbeatThreadData = { config, generation: this.generation };
    this.thread = new Worker(bootstrap, { eval: true, workerData });
    this.loaded = new Promise((resolve, reject) => {
      this.thread.once('error', reject);
      this.thread.on('message', (message: FromHeartbeatThread) => {
        if (message.type === 'ready') resolve();
      });
    });
    this.thread.on('message', (message: FromHeartbeatThread) => {
      if (message.type === 'event') sink.emit(message.event);
      else if (message.type === 'lost') sink.lost(message.token, message.reason);
    });
    this.thread.on('error', (error) =>
      sink.emit({
        kind: 'error',
        at: performance.timeOrigin + performance.now(),
        message: `heartbeat thread: ${error.message}`,
      }),
    );
  }

  start(claim: Claim, claimedAtAbs: number): void {
    const generation = Atomics.add(this.generation, 0, 1) + 1;
    this.post({ type: 'start', claim, claimedAtAbs, generation });
  }

  stop(): void {
    Atomics.add(this.generation, 0, 1);
  }

  ready(): Promise<void> {
    return this.loaded;
  }

  setClock(skew: ClockSkew): void {
    this.post({ type: 'clock', skew });
  }

  async close(): Promise<void> {
    const closed = new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, 2_000);
      this.thread.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
    this.post({ type: 'close' });
    await closed;
    await this.thread.terminate();
  }

  private post(message: ToHeartbeatThread): void {
    this.thread.postMessage(message);
  }
}
