import { isAbsolute, resolve } from 'node:path';
import type { DatabaseProxy, RunDatabase, StartedEnvironment } from '../env/types.js';
import type { LeaseSettings } from '../queue/types.js';
import type { ClockSkew, WorkerConfig } from '../worker/types.js';
import { EnvironmentError } from '../errors.js';
import { loadQueueAdapter } from '../libraries/load-adapter.js';
import { StartedWorker, type ReceivedEvent } from './worker-process.js';
import { stdioLinesTransport } from './stdio-lines-transport.js';
import type { WorkerTransport } from './worker-transport.js';

/** What a pool of workers runs against. */
export interface WorkerPoolOptions {
  /** The environment (for the per-worker proxies). */
  env: StartedEnvironment;
  /** The run database, with the queue's schema set up. */
  database: RunDatabase;
  /** Built-in queue name or adapter path (a relative path is resolved against the cwd here). */
  queue: string;
  /** How many workers. */
  workers: number;
  /** Lease settings. */
  lease: LeaseSettings;
  /** A library's settings by name, as the run uses them (see `WorkerConfig.settings`). */
  settings?: Readonly<Record<string, number>>;
  /** Initial clock skew per worker index (0-based), if any. */
  clock?: (index: number) => ClockSkew | undefined;
  /** The shutdown timeout per worker index (0-based), if it has one (see `WorkerConfig`). */
  shutdownTimeoutMs?: (index: number) => number | undefined;
  /** Called for every event of every worker as it arrives. */
  onEvent?: (event: ReceivedEvent) => void;
  /**
   * Leave the workers ready but not claiming until `release()` (a scenario applies its faults of
   * time zero first). By default every worker is released at once when all are ready.
   */
  held?: boolean;
}

/**
 * N worker processes, each behind a Toxiproxy proxy of its own (so a fault can cut one worker
 * off while the others carry on). Stopping the pool stops every worker, continuing paused ones.
 */
export class WorkerPool implements AsyncDisposable {
  private stopping: Promise<void> | undefined;
  private released = false;
  /** Crashed workers that `restartWorker` replaced: their events are still the run's. */
  private readonly replaced: StartedWorker[] = [];
  /** Each worker's configuration, by id, for `restartWorker`. */
  private readonly configs = new Map<string, WorkerConfig>();

  private constructor(
    /** The workers, `w1` … `wN`, in order. */
    readonly workers: StartedWorker[],
    /** Their proxies, in the same order. */
    readonly proxies: DatabaseProxy[],
    private readonly options: WorkerPoolOptions,
    /** How workers are started: leaseproof's Node worker when undefined. */
    private readonly transport: WorkerTransport | undefined,
  ) {}

  /** Creates the proxies and starts the workers (in parallel); on a failure stops what started. */
  static async start(options: WorkerPoolOptions): Promise<WorkerPool> {
    const queue =
      looksLikePath(options.queue) && !isAbsolute(options.queue)
        ? resolve(options.queue)
        : options.queue;
    // Loaded here once first, so a broken adapter file is one clear AdapterError from the
    // controller rather than N workers failing the same way.
    const adapter = await loadQueueAdapter(queue);
    // Native mode: the library's own loop, in a program of its own, over JSON lines.
    const transport =
      adapter.native === undefined
        ? undefined
        : stdioLinesTransport(await adapter.native.program());
    const workers: StartedWorker[] = [];
    const proxies: DatabaseProxy[] = [];
    const pool = new WorkerPool(workers, proxies, options, transport);
    try {
      for (let i = 0; i < options.workers; i += 1) {
        proxies.push(await options.env.createProxy(`w${i + 1}`));
      }
      const started = await Promise.allSettled(
        proxies.map((proxy, i) => {
          const config: WorkerConfig = {
            workerId: `w${i + 1}`,
            queue,
            databaseUrl: proxy.urlFor(options.database),
            effectsUrl: options.database.url,
            lease: options.lease,
            ...(options.settings !== undefined && { settings: { ...options.settings } }),
            clock: options.clock?.(i),
            shutdownTimeoutMs: options.shutdownTimeoutMs?.(i),
          };
          pool.configs.set(config.workerId, config);
          return StartedWorker.start({
            runId: options.env.runId,
            config,
            ...(transport !== undefined && { transport }),
          });
        }),
      );
      for (const result of started) if (result.status === 'fulfilled') workers.push(result.value);
      const failed = started.find((r) => r.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
      if (options.onEvent) {
        for (const worker of workers) {
          for (const e of worker.events) options.onEvent(e);
          worker.on('event', options.onEvent);
        }
      }
      if (options.held !== true) pool.release();
      return pool;
    } catch (error) {
      await pool.stop();
      throw error;
    }
  }

  /** Lets every worker start claiming, at once. Idempotent. */
  release(): void {
    if (this.released) return;
    this.released = true;
    for (const worker of this.workers) if (worker.running) worker.release();
  }

  /** The worker with this id (`w1`…). */
  worker(id: string): StartedWorker {
    const worker = this.workers.find((w) => w.workerId === id);
    if (worker === undefined) throw new Error(`no worker "${id}" in this pool`);
    return worker;
  }

  /** The proxy of the worker with this id. */
  proxy(id: string): DatabaseProxy {
    const index = this.workers.findIndex((w) => w.workerId === id);
    const proxy = this.proxies[index];
    if (proxy === undefined) throw new Error(`no proxy for worker "${id}"`);
    return proxy;
  }

  /**
   * Replaces a crashed worker with a fresh process under the same id, behind the same proxy
   * (the worker's host and network path; toxics on it stay in force), with the slot's initial
   * configuration — its initial clock skew included, not a skew a fault set later. Its events
   * go to `onEvent` and `events()` along with those of the process it replaces. Throws if the
   * worker is still running: a restart follows a crash.
   */
  async restartWorker(id: string): Promise<StartedWorker> {
    if (this.stopping !== undefined) {
      throw new EnvironmentError(`cannot restart worker ${id}: the pool is stopping`);
    }
    const index = this.workers.findIndex((w) => w.workerId === id);
    const old = this.workers[index];
    const config = this.configs.get(id);
    if (old === undefined || config === undefined)
      throw new Error(`no worker "${id}" in this pool`);
    if (old.running) {
      throw new EnvironmentError(
        `cannot restart worker ${id}: it is still running (crash it first)`,
      );
    }
    await old.stop();
    const worker = await StartedWorker.start({
      runId: this.options.env.runId,
      config,
      ...(this.transport !== undefined && { transport: this.transport }),
    });
    this.replaced.push(old);
    this.workers[index] = worker;
    // A fresh worker replacing a crashed one starts claiming as soon as it is ready.
    if (this.released) worker.release();
    const { onEvent } = this.options;
    if (onEvent) {
      for (const e of worker.events) onEvent(e);
      worker.on('event', onEvent);
    }
    // Stopped in the meantime: this worker was not in the list `stop()` went through.
    if (this.stopping !== undefined) await worker.stop();
    return worker;
  }

  /**
   * All events of all workers (replaced ones included), ordered by the controller's receive
   * time. Throws if a worker broke the wire format (its events cannot be believed, and a history
   * missing them would be judged as if it were whole) or exited without the controller ending it
   * (what followed is not the scenario's run).
   */
  events(): ReceivedEvent[] {
    const failed = this.workerFailure();
    if (failed !== undefined) throw failed;
    const all = [...this.replaced, ...this.workers];
    return all.flatMap((w) => w.events).sort((a, b) => a.receivedAt - b.receivedAt);
  }

  /**
   * Why the run cannot be judged, if a worker (a replaced one included) broke the wire format or
   * exited without the controller ending it; undefined while all is well.
   */
  workerFailure(): Error | undefined {
    const all = [...this.replaced, ...this.workers];
    for (const w of all) if (w.brokenWireFormat !== undefined) return w.brokenWireFormat;
    for (const w of all) if (w.exitedByItself !== undefined) return w.exitedByItself;
    return undefined;
  }

  /** Stops every worker (SIGCONT, SIGTERM, SIGKILL after a grace period) and removes proxies. */
  async stop(graceMs = 10_000): Promise<void> {
    this.stopping ??= (async () => {
      // Proxies are healed first: a worker finishing its job on SIGTERM must reach the queue.
      await Promise.allSettled(this.proxies.map((p) => p.heal()));
      await Promise.allSettled(this.workers.map((w) => w.stop(graceMs)));
      await Promise.allSettled(this.proxies.map((p) => p.remove()));
    })();
    return this.stopping;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.stop();
  }
}

function looksLikePath(value: string): boolean {
  return value.startsWith('.') || value.includes('/') || /\.[cm]?[jt]s$/.test(value);
}
