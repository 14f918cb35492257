import type { EvidenceLog } from './evidence.js';
import type { CheckOptions, CheckResult, Distribution, InvariantId } from './types.js';

/** What a checker found, before it becomes a verdict. */
export interface Findings {
  violations: EvidenceLog;
  counts: Record<string, number>;
  stats?: Record<string, Distribution | number>;
  warnings?: string[];
  /** Evidence to show with warnings when there are no violations. */
  warningEvidence?: EvidenceLog;
  /** Set when the checker cannot tell; ignored when there are violations. */
  unknownWhy?: string;
  /**
   * Set when the queue does not promise what the checker judges (no lease extension, a
   * per-worker lease, …): the verdict is `n/a` with this reason, unless a violation or a reason
   * not to know comes first.
   */
  naWhy?: string;
}

/**
 * Turns findings into a result: a violation makes it invalid whatever else is true (what was
 * recorded happened, even in a cut history); otherwise a reason not to know makes it unknown.
 */
export function toResult(
  checker: { name: string; id: InvariantId },
  options: CheckOptions,
  findings: Findings,
): CheckResult {
  const { violations, counts, stats, warnings, warningEvidence, unknownWhy, naWhy } = findings;
  const valid =
    violations.count > 0
      ? 'invalid'
      : unknownWhy !== undefined
        ? 'unknown'
        : naWhy !== undefined
          ? 'n/a'
          : 'valid';
  const evidence = violations.items.length > 0 ? violations.items : (warningEvidence?.items ?? []);
  return {
    checker: checker.name,
    id: checker.id,
    valid,
    counts,
    evidence,
    ...(stats !== undefined && { stats }),
    epsilonMs: options.epsilonMs,
    ...(warnings !== undefined && warnings.length > 0 && { warnings }),
    ...(valid === 'unknown' && { why: unknownWhy }),
    ...(valid === 'n/a' && { why: naWhy }),
  };
}
