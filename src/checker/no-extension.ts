import type { History } from '../history/types.js';

/**
 * Why a checker whose bound is the heartbeat cannot judge this history: the queue has no lease
 * extension (pg-boss 10, graphile-worker), so there is no heartbeat period to bound anything by.
 * Undefined when the queue extends leases.
 */
export function noExtensionWhy(history: History, what: string): string | undefined {
  const terms = history.header.queueTerms;
  if (terms === undefined || terms.extendsLease) return undefined;
  return `queue "${history.header.queue}" has no lease extension (no heartbeat): ${what}`;
}
