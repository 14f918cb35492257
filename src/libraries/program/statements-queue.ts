import type { LibrarySettingsSpec, SettledSettings } from '../../queue/library-settings.js';
import type {
  LeaseSettings,
  LeaseTerms,
  QueueAdapter,
  QueueMaintenance,
} from '../../queue/types.js';
import { programQueue } from './program-queue.js';
import { programClockLimits } from './program-clock.js';
import { pythonNativeProgram } from './python-native.js';

/** What `statementsQueue` needs. */
export interface StatementsQueueOptions {
  /** The queue's name (`procrastinate-statements`). */
  name: string;
  /** One sentence. */
  description: string;
  /** The Python module that answers the primitives with the library's statements. */
  module: string;
  /** The library's native adapter: its audit, sweep, setup, enqueue and retries are reused. */
  base: QueueAdapter;
  /** The lease terms in this mode. */
  leaseTerms(requested: LeaseSettings, settings?: SettledSettings): LeaseTerms;
  /** The library's settings, when the terms come from them (see `library-settings.ts`). */
  settings?: LibrarySettingsSpec;
  /**
   * The harness-run sweep of this mode, where the library's recovery runs inside its own worker
   * in native mode (procrastinate's periodic task) and no such worker runs here. Absent: the
   * native adapter's own harness-run sweep, if any.
   */
  maintenance?: QueueMaintenance;
}

/**
 * A library in primitives mode: leaseproof's own worker loop (heartbeat thread, watchdog) calling
 * the library's own statements through a Python program (`serve` of leaseproof's client), with
 * everything else — the audit description, the sweep, setup, enqueue — from the library's native
 * adapter. Side by side with native mode it tells the statements' findings from the loop's. The
 * program starts once per process that calls a primitive (each worker, each heartbeat thread).
 */
export function statementsQueue(options: StatementsQueueOptions): QueueAdapter {
  const { base } = options;
  const maintenance = options.maintenance ?? base.maintenance;
  let program: Promise<QueueAdapter> | undefined;
  let started: QueueAdapter | undefined;
  const statements = (): Promise<QueueAdapter> => {
    program ??= (async () => {
      const { command, env } = await pythonNativeProgram(options.module);
      started = await programQueue({ command, ...(env !== undefined && { env }) })();
      return started;
    })().catch((error: unknown) => {
      program = undefined;
      throw error;
    });
    return program;
  };
  return {
    name: options.name,
    description: options.description,
    audit: base.audit,
    ...(maintenance !== undefined && { maintenance }),
    ...(base.retries !== undefined && { retries: base.retries }),
    setup: (db, ctx) => base.setup(db, ctx),
    teardown: (db) => base.teardown(db),
    enqueue: (db, jobs, ctx) => base.enqueue(db, jobs, ctx),
    get limits() {
      return programClockLimits();
    },
    ...(options.settings !== undefined && { settings: options.settings }),
    leaseTerms: (requested, settings) => options.leaseTerms(requested, settings),
    // The program imports its library (seconds on a busy machine): started before `ready`, not
    // by the first heartbeat inside a lease.
    open: async () => {
      await statements();
    },
    claim: async (db, ctx) => (await statements()).claim(db, ctx),
    extend: async (db, claim, ctx) => {
      const adapter = await statements();
      return adapter.extend === undefined ? false : adapter.extend(db, claim, ctx);
    },
    ack: async (db, claim, ctx) => (await statements()).ack(db, claim, ctx),
    fail: async (db, claim, error, ctx) => (await statements()).fail(db, claim, error, ctx),
    backendPid: () => started?.backendPid?.(),
  };
}
