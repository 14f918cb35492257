import { textTable } from '../report/text-table.js';
import type { ScenarioOutcome } from './run-scenarios.js';

const MARK: Record<string, string> = { valid: 'ok', invalid: 'FAIL', unknown: '?' };

/**
 * The final verdict table: one row per scenario × queue, one column per invariant, and the
 * row's verdict. A checker the scenario did not ask for is shown as `-`.
 */
export function formatOutcomeTable(outcomes: readonly ScenarioOutcome[]): string {
  const ids = ['I1', 'I2', 'I3', 'I4', 'I5', 'I6', 'I7', 'I8', 'I9'];
  const header = ['scenario', 'queue', ...ids, 'verdict'];
  const rows = outcomes.map((o) => {
    const byId = new Map(o.result.results.map((r) => [r.id as string, r]));
    return [
      o.scenario,
      o.queue,
      ...ids.map((id) => {
        const r = byId.get(id);
        if (r === undefined) return '-';
        return (
          (MARK[r.valid] ?? r.valid) +
          (r.valid === 'valid' && (r.warnings?.length ?? 0) > 0 ? '*' : '')
        );
      }),
      o.result.valid,
    ];
  });
  return [
    ...textTable(header, rows),
    '',
    '* valid with warnings (e.g. an expiry no fault explains)',
  ].join('\n');
}
