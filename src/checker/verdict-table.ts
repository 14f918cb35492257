import type { CheckResult, CompositeResult } from './types.js';

const VERDICT_TEXT = {
  valid: 'valid',
  invalid: 'INVALID',
  unknown: 'unknown',
  'n/a': 'n/a',
} as const;

/**
 * The verdict as a text table: one row per checker (name, verdict, counts, first evidence — or
 * why, for unknown, or the first warning), then the overall verdict and the options it was
 * reached with.
 */
export function formatVerdictTable(result: CompositeResult): string {
  const rows = result.results.map((r) => [
    `${r.checker} (${r.id})`,
    VERDICT_TEXT[r.valid],
    Object.entries(r.counts)
      .map(([k, v]) => `${k}=${v}`)
      .join(' '),
    firstWord(r),
  ]);
  const header = ['checker', 'verdict', 'counts', 'first evidence'];
  const widths = [0, 1, 2].map((c) =>
    Math.max(header[c]!.length, ...rows.map((r) => r[c]!.length)),
  );
  const line = (cells: string[]): string =>
    cells
      .map((cell, c) => (c < 3 ? cell.padEnd(widths[c]!) : cell))
      .join('  ')
      .trimEnd();
  const { epsilonMs, staleAck, strictCauses } = result.options;
  return [
    line(header),
    ...rows.map(line),
    '',
    `verdict: ${VERDICT_TEXT[result.valid]} (ε = ${epsilonMs}ms, stale acks ${staleAck}, ` +
      `unexplained expiries ${strictCauses ? 'invalid' : 'warned'})`,
  ].join('\n');
}

function firstWord(r: CheckResult): string {
  if (r.valid === 'unknown' || r.valid === 'n/a') return r.why ?? '';
  const first = r.evidence[0];
  if (r.valid === 'invalid' && first !== undefined) return `job ${first.job}: ${first.message}`;
  const warning = r.warnings?.[0];
  if (warning === undefined) return '';
  return first === undefined
    ? `warning: ${warning}`
    : `warning: ${warning} (e.g. job ${first.job}: ${first.message})`;
}
