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
import type { ClockSkew, ControlMessage, WorkerConfig, WorkerEvent } from '../worker/types.js';
import { parseWorkerMessage, WIRE_FORMAT_VERSION } from '../worker/wire-format.js';
import { UncontendedStopwatch } from '../env/cpu-pressure.js';
import { noteStarvedReport } from './starvation-gauge.js';
import { nodeIpcTransport } from './node-ipc-transport.js';
import type { WorkerLink, WorkerTransport } from './worker-transport.js';

// The first line of a runtime's crash report (Go's panics and fatal errors).
const CRASH_LINE = /^(panic: |fatal error: |runtime: )/;

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
  /** How the worker process is started and reached (default: leaseproof's Node worker over IPC). */
  transport?: WorkerTransport;
}

/**
 * A running worker process, seen from the controller: real signals (SIGSTOP, SIGCONT,
 * SIGKILL, SIGTERM) to its pid, and control messages (clock skew, event-loop stall) over its
 * transport's link. `stop()` always continues a paused worker first: a worker left SIGSTOPped is
 * a bug.
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
  private crashLine: string | undefined;
  private wireError: Error | undefined;
  /** Set when the controller itself ends the process (a crash fault, a stop). */
  private ending = false;
  private ownExit: Error | undefined;
  private record: ProcessRecord;

  private constructor(
    readonly workerId: string,
    private readonly link: WorkerLink,
    runId: string,
  ) {
    super();
    // Written in full once the registry has read the process's start time (`start`); until
    // then this is enough to stop it.
    this.record = {
      runId,
      kind: 'worker',
      pid: link.pid,
      ownerPid: process.pid,
      stopSignal: 'SIGTERM',
    };
    link.onMessage((raw) => {
      if (this.wireError !== undefined) return;
      let message;
      try {
        message = parseWorkerMessage(raw);
      } catch (error) {
        // A worker that breaks the wire format cannot be believed about anything after: it is
        // killed, and the run ends as a harness error (`brokenWireFormat`), not a verdict.
        this.wireError = new EnvironmentError(
          `worker ${workerId} (${link.pid}) broke the wire format: ${(error as Error).message}`,
        );
        this.stderrTail.push(this.wireError.message);
        void this.kill().catch(() => undefined);
        return;
      }
      const receivedAt = Date.now();
      for (const event of message.events) {
        if (event.kind === 'starved') noteStarvedReport(event);
        const received: ReceivedEvent = { workerId, event, receivedAt };
        this.events.push(received);
        this.emit('event', received);
      }
    });
    link.onStderrLine((line) => {
      // A Go runtime's crash says why on its first line, then dumps every goroutine: the tail
      // alone would lose the why.
      if (this.crashLine === undefined && CRASH_LINE.test(line)) this.crashLine = line;
      this.stderrTail.push(line);
      this.stderrTail.splice(0, Math.max(0, this.stderrTail.length - 20));
    });
    link.onExit((code, signal) => {
      this.exited = true;
      if (!this.ending && this.wireError === undefined) {
        // Nobody ended it: its own loop gave up (an uncaught error, a library's loop that ends
        // on a lost connection). What follows is not the run the scenario describes.
        this.ownExit = new EnvironmentError(
          `worker ${workerId} (${link.pid}) exited by itself (code ${String(code)}, signal ` +
            `${String(signal)}) before the run ended` +
            (this.crashLine !== undefined && !this.stderrTail.slice(-12).includes(this.crashLine)
              ? `: ${this.crashLine} …`
              : '') +
            (this.stderrTail.length === 0 ? '' : `:\n${this.stderrTail.slice(-12).join('\n')}`),
        );
      }
      unguardChild(link.pid);
      void forgetProcess(this.record);
      this.emit('exit', code, signal);
    });
  }

  /** Starts the worker process, sends its configuration, and waits until it is ready. */
  static async start(options: WorkerProcessOptions): Promise<StartedWorker> {
    const transport = options.transport ?? nodeIpcTransport;
    const link = transport.start(options.config);
    guardChild(link.pid, 'SIGKILL');
    const worker = new StartedWorker(options.config.workerId, link, options.runId);
    worker.record = await recordProcess(worker.record);
    // It may have exited while the record was written: its exit handler forgot the first one.
    if (worker.exited) await forgetProcess(worker.record);
    const message: ControlMessage = {
      type: 'config',
      wireFormat: WIRE_FORMAT_VERSION,
      config: options.config,
    };
    if (link.connected) link.send(message);
    try {
      await worker.waitForReady(options.readyTimeoutMs ?? 30_000);
      const ready = worker.events.find((e) => e.event.kind === 'ready')?.event;
      if (ready?.kind === 'ready' && ready.wireFormat !== WIRE_FORMAT_VERSION) {
        throw new EnvironmentError(
          `it speaks wire format ${ready.wireFormat}; leaseproof speaks ${WIRE_FORMAT_VERSION}`,
        );
      }
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

  /**
   * Why this worker's messages could not be read (it broke the wire format and was killed), if
   * they could not: a run with such a worker has no history to judge.
   */
  get brokenWireFormat(): Error | undefined {
    return this.wireError;
  }

  /**
   * Why this worker's run cannot be judged because its process ended without the controller
   * ending it (no crash fault, no stop), if it did: a harness or library failure, not a verdict.
   */
  get exitedByItself(): Error | undefined {
    return this.ownExit;
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
    this.ending = true;
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

  /** Asks the worker to report its clock (a `clock` event: its wall time and the real time). */
  reportClock(): void {
    this.send({ type: 'report-clock' });
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
      this.ending = true;
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
    if (this.exited || !this.link.connected) {
      throw new EnvironmentError(`worker ${this.workerId} is not connected`);
    }
    this.link.send(message);
  }
}
