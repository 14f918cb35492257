import { isAbsolute, resolve } from 'node:path';
import type { DatabaseProxy, RunDatabase, StartedEnvironment } from '../env/types.js';
import type { LeaseSettings } from '../queue/types.js';
import type { ClockSkew } from '../worker/types.js';
import { loadQueueAdapter } from '../queue/load-adapter.js';
import { StartedWorker, type ReceivedEvent } from './worker-process.js';

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
  /** Initial clock skew per worker index (0-based), if any. */
  clock?: (index: number) => ClockSkew | undefined;
  /** Called for every event of every worker as it arrives. */
  onEvent?: (event: ReceivedEvent) => void;
}

/**
 * N worker processes, each behind a Toxiproxy proxy of its own (so a fault can cut one worker
 * off while the others carry on). Stopping the pool stops every worker, continuing paused ones.
 */
export class WorkerPool implements AsyncDisposable {
  private stopping: Promise<void> | undefined;

  private constructor(
    /** The workers, `w1` … `wN`, in order. */
    readonly workers: StartedWorker[],
    /** Their proxies, in the same order. */
    readonly proxies: DatabaseProxy[],
  ) {}

  /** Creates the proxies and starts the workers (in parallel); on a failure stops what started. */
  static async start(options: WorkerPoolOptions): Promise<WorkerPool> {
    const queue =
      looksLikePath(options.queue) && !isAbsolute(options.queue)
        ? resolve(options.queue)
        : options.queue;
    // Loaded here once first, so a broken adapter file is one clear AdapterError from the
    // controller rather than N workers failing the same way.
    await loadQueueAdapter(queue);
    const workers: StartedWorker[] = [];
    const proxies: DatabaseProxy[] = [];
    const pool = new WorkerPool(workers, proxies);
    try {
      for (let i = 0; i < options.workers; i += 1) {
        proxies.push(await options.env.createProxy(`w${i + 1}`));
      }
      const started = await Promise.allSettled(
        proxies.map((proxy, i) =>
          StartedWorker.start({
            runId: options.env.runId,
            config: {
              workerId: `w${i + 1}`,
              queue,
              databaseUrl: proxy.urlFor(options.database),
              effectsUrl: options.database.url,
              lease: options.lease,
              clock: options.clock?.(i),
            },
          }),
        ),
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
      return pool;
    } catch (error) {
      await pool.stop();
      throw error;
    }
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

  /** All events of all workers, ordered by the controller's receive time. */
  events(): ReceivedEvent[] {
    return this.workers.flatMap((w) => w.events).sort((a, b) => a.receivedAt - b.receivedAt);
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
