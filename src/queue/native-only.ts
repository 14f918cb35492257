import { AdapterError } from './adapter-error.js';
import type { QueueAdapter } from './types.js';

/**
 * The primitives of a queue that runs only in native mode (its library's own loop claims,
 * heartbeats and completes; nothing exposes those steps one by one): each refuses with an
 * `AdapterError` that says so, for a caller that drives primitives (`leaseproof conform`, a
 * user's own loop) — never a silent no-op that would look like a queue.
 */
export function nativeOnlyPrimitives(name: string): Pick<QueueAdapter, 'claim' | 'ack' | 'fail'> {
  const refuse = (op: string) => {
    const refusal = (): Promise<never> =>
      Promise.reject(
        new AdapterError(
          `queue "${name}" runs only in native mode (its library's own worker loop): it has no ` +
            `${op} primitive for leaseproof's loop to call`,
        ),
      );
    refused.add(refusal);
    return refusal;
  };
  return { claim: refuse('claim'), ack: refuse('ack'), fail: refuse('fail') };
}

const refused = new WeakSet<object>();

/** Whether `adapter`'s primitives are `nativeOnlyPrimitives` refusals (or absent, in native mode). */
export function isNativeOnly(adapter: QueueAdapter): boolean {
  const claim = (adapter as { claim?: object }).claim;
  return adapter.native !== undefined && (claim === undefined || refused.has(claim));
}
