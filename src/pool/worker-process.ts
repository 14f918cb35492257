import { fork, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { guardChild, unguardChild } from '../env/child-guard.js';
import {
  forgetProcess,
  isAlive,
  recordProcess,
  stopProcess,
  type ProcessRecord,
} from '../env/process-registry.js';
import { EnvironmentError } from '../errors.js';
import type {
  ClockSkew,
  ControlMessage,
  EventMessage,
  WorkerConfig,
  WorkerEvent,
} from '../worker/types.js';
import { workerEntry } from './worker-entry.js';
import { UncontendedStopwatch } from '../env/cpu-pressure.js';
import { noteStarvedReport } from './starvation-gauge.js';

/** A worker start-up's wall-time cap, as a multiple of its uncontended budget. */
export const READY_WALL_FACTOR = 10;

/** A worker event as the controller saw it: with the controller's receive time. */
export interface ReceivedEvent {
  /** Which worker. */
  workerId: string;
  /** The event (its `at` is the worker's monotonic time). */
  event: WorkerEvent;
  /** When the controller received it (controller clock, ms since epoch). */
  receivedAt: number;
}

/** Options for starting one worker process. */
export interface WorkerProcessOptions {
  /** The worker's configuration. */
  config: WorkerConfig;
  /** The run id (for the leftover record). */
  runId: string;
  /**
   * How long the worker may take to load its adapter and say it is ready (default 30 s), counted
   * only while the machine had a CPU to give it (see `UncontendedStopwatch`); a start-up slowed
   * by a busy runner waits up to `READY_WALL_FACTOR` times as long in wall time.
   */
  readyTimeoutMs?: number;
}

/**
 * A running worker process, seen from the controller: real signals (SIGSTOP, SIGCONT,
 * SIGKILL, SIGTERM) and IPC control (clock skew, event-loop stall). `stop()` always continues a
 * paused worker first: a worker left SIGSTOPped is a bug.
 */
export class StartedWorker extends EventEmitter<{
  event: [ReceivedEvent];
  exit: [number | null, NodeJS.Signals | null];
}> {
  /** Every event received so far, in order of receipt. */
  readonly events: ReceivedEvent[] = [];
  private exited = false;
  private stopping: Promise<void> | undefined;
  private readonly stderrTail: string[] = [];

  private constructor(
    readonly workerId: string,
    private readonly child: ChildProcess,
    private readonly record: ProcessRecord,
  ) {
    super();
    child.on('message', (message: EventMessage) => {
      if (message?.type !== 'events') return;
      const receivedAt = Date.now();
      for (const event of message.events) {
        if (event.kind === 'starved') noteStarvedReport(event);
        const received: ReceivedEvent = { workerId, event, receivedAt };
        this.events.push(received);
        this.emit('event', received);
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail.push(...chunk.toString().split('\n').filter(Boolean));
      this.stderrTail.splice(0, Math.max(0, this.stderrTail.length - 20));
    });
    child.on('exit', (code, signal) => {
      this.exited = true;
      unguardChild(record.pid);
      void forgetProcess(record);
      this.emit('exit', code, signal);
    });
  }

  /** Forks the worker, sends its configuration, and waits until it is ready. */
  static async start(options: WorkerProcessOptions): Promise<StartedWorker> {
    const { file, execArgv } = workerEntry(options.config.queue);
    const child = fork(file, [options.config.workerId], {
      execArgv,
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      serialization: 'advanced',
      // A session of its own: a Ctrl-C in the terminal signals the whole foreground process
      // group, and SIGINT would kill a worker mid-job under the controller's orderly stop
      // (SIGTERM: finish the job). It still exits when the controller goes (IPC 'disconnect').
      detached: true,
    });
    const pid = child.pid;
    if (pid === undefined)
      throw new EnvironmentError(`could not start worker ${options.config.workerId}`);
    guardChild(pid, 'SIGKILL');
    const record: ProcessRecord = {
      runId: options.runId,
      kind: 'worker',
      pid,
      ownerPid: process.pid,
      match: 'worker-main',
      stopSignal: 'SIGTERM',
    };
    await recordProcess(record);
    const worker = new StartedWorker(options.config.workerId, child, record);
    const message: ControlMessage = { type: 'config', config: options.config };
    child.send(message);
    try {
      await worker.waitForReady(options.readyTimeoutMs ?? 30_000);
    } catch (error) {
      const tail = worker.stderrTail.join('\n');
      await worker.stop();
      throw new EnvironmentError(
        `worker ${options.config.workerId} did not start` + (tail === '' ? '' : `:\n${tail}`),
        { cause: error },
      );
    }
    return worker;
  }

  /** The process id. */
  get pid(): number {
    return this.record.pid;
  }

  /** Whether the process is still running (or stopped by a signal, but alive). */
  get running(): boolean {
    return !this.exited && isAlive(this.record.pid);
  }

  /** Resolves with the first event (already received or future) matching `predicate`. */
  waitFor(predicate: (event: WorkerEvent) => boolean, timeoutMs: number): Promise<ReceivedEvent> {
    const seen = this.events.find((e) => predicate(e.event));
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer);
        this.off('event', onEvent);
        this.off('exit', onExit);
      };
      const onEvent = (e: ReceivedEvent): void => {
        if (!predicate(e.event)) return;
        cleanup();
        resolve(e);
      };
      const onExit = (): void => {
        cleanup();
        reject(
          new EnvironmentError(
            `worker ${this.workerId} exited while waited on; stderr:\n${this.stderrTail.join('\n')}`,
          ),
        );
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          new EnvironmentError(
            `worker ${this.workerId}: awaited event not seen after ${timeoutMs}ms`,
          ),
        );
      }, timeoutMs);
      this.on('event', onEvent);
      this.on('exit', onExit);
      if (this.exited) onExit();
    });
  }

  /**
   * Waits for `ready`, failing after `budgetMs` of uncontended time: on a starved two-core
   * runner four runs' workers, their threads and two servers start at once, and a plain 30 s
   * timeout failed runs whose workers were merely waiting for a CPU.
   */
  private async waitForReady(budgetMs: number): Promise<void> {
    const watch = UncontendedStopwatch.start();
    const wallCapMs = budgetMs * READY_WALL_FACTOR;
    const ready = this.waitFor((e) => e.kind === 'ready', wallCapMs);
    let timer: NodeJS.Timeout | undefined;
    const budget = new Promise<never>((_, reject) => {
      const check = (): void => {
        const { wallMs, contendedMs, uncontendedMs } = watch.elapsed();
        if (uncontendedMs < budgetMs) {
          timer = setTimeout(check, Math.max(100, Math.min(1_000, budgetMs - uncontendedMs)));
          return;
        }
        reject(
          new EnvironmentError(
            `worker ${this.workerId}: not ready after ${Math.round(uncontendedMs)}ms with a CPU ` +
              `free (${Math.round(wallMs)}ms wall, ${Math.round(contendedMs)}ms of it with the ` +
              'CPUs contended)',
          ),
        );
      };
      check();
    });
    try {
      await Promise.race([ready, budget]);
    } finally {
      clearTimeout(timer);
      ready.catch(() => undefined);
      budget.catch(() => undefined);
    }
  }

  /** SIGSTOP: the whole process freezes (a GC pause, a VM live migration). */
  pause(): void {
    this.signal('SIGSTOP');
  }

  /** SIGCONT: the process runs on from where it froze, its timers all late at once. */
  resume(): void {
    this.signal('SIGCONT');
  }

  /** SIGKILL: a crash. Resolves when the process is gone. */
  async kill(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.once('exit', () => resolve()));
    this.signal('SIGKILL');
    await gone;
  }

  /** Lets the worker start claiming (it waits for this after saying it is ready). */
  release(): void {
    this.send({ type: 'go' });
  }

  /** Skews the worker's `Date` (offset and drift), live. */
  setClock(skew: ClockSkew): void {
    this.send({ type: 'clock', skew });
  }

  /** Blocks the worker's event loop for `ms` (its heartbeat thread keeps running). */
  stall(ms: number): void {
    this.send({ type: 'stall', ms });
  }

  /**
   * Stops the worker: continues it if paused, SIGTERM (it finishes its current job), then
   * SIGKILL after `graceMs`. Idempotent.
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping ??= (async () => {
      if (!this.exited) {
        const gone = new Promise<void>((resolve) => {
          if (this.exited) resolve();
          else this.once('exit', () => resolve());
        });
        await stopProcess(this.record.pid, 'SIGTERM', graceMs);
        await gone;
      }
      unguardChild(this.record.pid);
      await forgetProcess(this.record);
    })();
    return this.stopping;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }

  private signal(signal: NodeJS.Signals): void {
    if (this.exited)
      throw new EnvironmentError(`worker ${this.workerId} has exited; cannot send ${signal}`);
    process.kill(this.record.pid, signal);
  }

  private send(message: ControlMessage): void {
    if (this.exited || !this.child.connected) {
      throw new EnvironmentError(`worker ${this.workerId} is not connected`);
    }
    this.child.send(message);
  }
}
