import { textTable } from '../text-table.js';
import type { ScenarioVerdict } from '../report/verdict-types.js';
import type { ScenarioOutcome } from '../run/run-scenarios.js';

const MARK: Record<string, string> = { valid: 'ok', invalid: 'FAIL', unknown: '?', 'n/a': 'n/a' };
const IDS = ['I1', 'I2', 'I3', 'I4', 'I5', 'I6', 'I7', 'I8', 'I9'];

/** One row of the verdict table: a scenario × queue and how each invariant judged it. */
export interface OutcomeRow {
  /** The scenario's name. */
  scenario: string;
  /** The queue. */
  queue: string;
  /** The row's verdict. */
  verdict: string;
  /** Each checker that ran: its invariant id, verdict, and whether it warned. */
  checks: { id: string; verdict: string; warned: boolean }[];
}

/** The row of a scenario that ran in this process. */
export function outcomeRow(o: ScenarioOutcome): OutcomeRow {
  return {
    scenario: o.scenario,
    queue: o.queue,
    verdict: o.error === undefined ? o.result.valid : 'error',
    checks: o.result.results.map((r) => ({
      id: r.id,
      verdict: r.valid,
      warned: (r.warnings?.length ?? 0) > 0,
    })),
  };
}

/** The row of a scenario as a verdict.json holds it (`merge` has no results, only files). */
export function verdictRow(s: ScenarioVerdict): OutcomeRow {
  return {
    scenario: s.name,
    queue: s.queue,
    verdict: s.verdict,
    checks: s.checkers.map((c) => ({
      id: c.id,
      verdict: c.verdict,
      warned: c.warnings.length > 0,
    })),
  };
}

/**
 * The final verdict table: one row per scenario × queue, one column per invariant, and the
 * row's verdict. A checker the scenario did not ask for is shown as `-`.
 */
export function formatOutcomeTable(outcomes: readonly (ScenarioOutcome | OutcomeRow)[]): string {
  const header = ['scenario', 'queue', ...IDS, 'verdict'];
  const rows = outcomes.map((o) => {
    const row = 'result' in o ? outcomeRow(o) : o;
    const byId = new Map(row.checks.map((c) => [c.id, c]));
    return [
      row.scenario,
      row.queue,
      ...IDS.map((id) => {
        const c = byId.get(id);
        if (c === undefined) return '-';
        return (MARK[c.verdict] ?? c.verdict) + (c.verdict === 'valid' && c.warned ? '*' : '');
      }),
      row.verdict,
    ];
  });
  return [
    ...textTable(header, rows),
    '',
    '* valid with warnings (e.g. an expiry no fault explains)',
  ].join('\n');
}
