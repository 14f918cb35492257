/** I2 single-completion: a job is completed at most once (counted from the audit). */
import { deriveHistory } from '../history/derive.js';
import type { AuditEvent } from '../history/types.js';
import { EvidenceLog, at, claimRef, historyWarnings, eventRef, faultsDuring } from './evidence.js';
import { resolveOptions } from './options.js';
import { toResult } from './result.js';
import type { Checker } from './types.js';

const META = { name: 'single-completion', id: 'I2' } as const;

/** I2: a job is completed at most once. */
export const singleCompletion: Checker = {
  ...META,
  description: 'A job is completed at most once.',
  check(history, partial) {
    const options = resolveOptions(partial);
    const derived = deriveHistory(history);
    const violations = new EvidenceLog(options.maxEvidence);
    const counts = { jobs: 0, completed: 0, completedTwice: 0, extraCompletions: 0 };
    for (const job of derived.jobs.values()) {
      counts.jobs += 1;
      const n = job.completions.length;
      if (n === 0) continue;
      counts.completed += 1;
      if (n === 1) continue;
      counts.completedTwice += 1;
      counts.extraCompletions += n - 1;
      if (!violations.take()) continue;
      const acks = job.completions.map((c) => history.events[c.index] as AuditEvent);
      const claims = [...new Set(job.completions.flatMap((c) => (c.by === null ? [] : [c.by])))];
      violations.add({
        job: job.id,
        message:
          `completed ${n} times: ` +
          acks.map((a) => `by ${a.app} at ${at(derived, a.stmtT)}`).join(', '),
        claims: claims.map(claimRef),
        events: job.completions.map((c, k) =>
          eventRef(derived, c.index, `completion ${k + 1} by ${acks[k]!.app}`),
        ),
        faults: faultsDuring(
          derived,
          acks.map((a) => a.app),
          acks[0]!.t,
          acks[acks.length - 1]!.t,
        ),
      });
    }
    return toResult(META, options, { violations, counts, warnings: historyWarnings(derived) });
  },
};
