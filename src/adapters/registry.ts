import type { QueueAdapter } from '../queue/types.js';
import { referenceQueue } from '../queue/reference-queue.js';
import { KNOWN_BAD_VARIANTS } from '../queue/known-bad-queues.js';
import { CONTROL_QUEUES } from '../queue/control-queues.js';
import { pgBossQueue } from './pg-boss.js';
import { pgBossNativeQueue } from './pg-boss-native.js';
import { graphileWorkerQueue } from './graphile-worker.js';
import { graphileWorkerNativeQueue } from './graphile-worker-native.js';
import { pgqueuerQueue } from './pgqueuer.js';
import { pgqueuerStatementsQueue } from './pgqueuer-statements.js';
import { procrastinateQueue } from './procrastinate.js';
import { procrastinateStatementsQueue } from './procrastinate-statements.js';
import { riverQueue } from './river.js';
import { dbSchedulerQueue } from './db-scheduler.js';

/**
 * Real queue libraries, driven through their own code (`src/adapters/`). Their packages are
 * optional: each loads its library on first use and says what to install when it is missing.
 */
export const LIBRARY_QUEUES: readonly QueueAdapter[] = Object.freeze([
  pgBossQueue,
  pgBossNativeQueue,
  graphileWorkerQueue,
  graphileWorkerNativeQueue,
  pgqueuerQueue,
  pgqueuerStatementsQueue,
  procrastinateQueue,
  procrastinateStatementsQueue,
  riverQueue,
  dbSchedulerQueue,
]);

/**
 * The queues that ship with leaseproof, by the name `--queue` takes: the reference first, then
 * the known-bad variants, the other correct queues (controls), then the real libraries.
 */
export const builtInQueues: Readonly<Record<string, QueueAdapter>> = Object.freeze(
  Object.fromEntries(
    [
      referenceQueue,
      ...KNOWN_BAD_VARIANTS.map((v) => v.queue),
      ...CONTROL_QUEUES,
      ...LIBRARY_QUEUES,
    ].map((q) => [q.name, q]),
  ),
);

/** The names of the built-in queues, reference first. */
export function queueNames(): string[] {
  return Object.keys(builtInQueues);
}

/** The built-in queue of that name, or undefined (also for names like `toString`). */
export function builtInQueue(name: string): QueueAdapter | undefined {
  return Object.hasOwn(builtInQueues, name) ? builtInQueues[name] : undefined;
}
