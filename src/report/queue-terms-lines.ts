import type { QueueTermsRecord } from '../history/types.js';
import { settingsLines } from '../queue/library-settings.js';

/**
 * What a queue did with the scenario's lease, one plain sentence each, for every report that
 * shows a run: no rounding, rescaling or missing heartbeat is silent.
 */
export function queueTermsLines(terms: QueueTermsRecord | undefined): string[] {
  if (terms === undefined) return [];
  const lines = [
    ...(terms.settings === undefined ? [] : settingsLines(terms.settings)),
    ...terms.notes.map((n) => `Lease: ${n}.`),
    ...terms.rescaled.map(
      (r) =>
        `Time compression: ${r.constant} is ${r.library} in the library, ${r.run} in this run; ` +
        `rewritten in ${r.statement}.`,
    ),
  ];
  if (!terms.extendsLease) {
    lines.push(
      'No lease extension: workers send no heartbeat; I9 is n/a, I7 is judged from the ' +
        'deadline, and I3 is n/a for a job whose work outlasts one lease.',
    );
  }
  if (terms.retries === false) {
    lines.push(
      'No retries: a failed attempt leaves the job failed; where a scenario fails early ' +
        'attempts, I3 is n/a for the jobs that ended failed.',
    );
  }
  if (terms.perWorkerLease !== undefined) {
    lines.push(
      `Lease per worker: kept alive in ${terms.perWorkerLease}; a heartbeat there extends ` +
        "every job its worker holds, and a fetched job joins its worker's current window.",
    );
  }
  if (terms.leaseTolerance !== undefined) {
    lines.push(
      `Lease tolerance: I6 allows a deadline up to ${String(Math.round(terms.leaseTolerance.ms * 1000) / 1000)}ms ` +
        `from statement time + lease, where it is more than ε: ${terms.leaseTolerance.why}.`,
    );
  }
  if (terms.unskewedClock !== undefined) {
    lines.push(`Clock skew not applied: ${terms.unskewedClock}; no invariant can be valid here.`);
  }
  if (terms.maintenance !== undefined) {
    lines.push(
      `Background sweep every ${terms.maintenance.intervalMs}ms: ${terms.maintenance.description}.`,
    );
  }
  return lines;
}
