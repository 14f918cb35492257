import type { QueueAdapter } from './types.js';
import { referenceQueue } from './reference-queue.js';
import { KNOWN_BAD_VARIANTS } from './known-bad-queues.js';

/**
 * The queues that ship with leaseproof, by the name `--queue` takes: the reference first, then
 * the known-bad variants.
 */
export const builtInQueues: Readonly<Record<string, QueueAdapter>> = Object.freeze(
  Object.fromEntries(
    [referenceQueue, ...KNOWN_BAD_VARIANTS.map((v) => v.queue)].map((q) => [q.name, q]),
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
