/**
 * `summary.md`: the run for a person reading a pull request or a CI page. First the verdict
 * table (scenario × invariant), then, for each scenario that is not valid or has warnings, each
 * such checker with its first evidence items in words and with timestamps.
 */
import type { Verdict } from '../checker/types.js';
import { evidenceLines } from './describe-evidence.js';
import { escapeMarkdown as md } from './escape.js';
import type { CheckerVerdict, ScenarioVerdict, VerdictFile } from './verdict-types.js';
import { queueTermsLines } from './queue-terms-lines.js';
import { expectationsLine, outcomeWords } from './expectations.js';
import type { VerdictExpectations } from './verdict-types.js';

/** Evidence items shown per checker; the rest are in verdict.json. */
export const SUMMARY_EVIDENCE = 3;

const MARK: Record<Verdict, string> = { valid: '✅', invalid: '❌', unknown: '❓', 'n/a': '➖' };

/** The checkers' columns: every checker that ran in some scenario, in invariant order. */
export function invariantColumns(verdict: VerdictFile): { id: string; checker: string }[] {
  const seen = new Map<string, string>();
  for (const s of verdict.scenarios) for (const c of s.checkers) seen.set(c.checker, c.id);
  return [...seen]
    .map(([checker, id]) => ({ id, checker }))
    .sort(
      (a, b) => Number(a.id.slice(1)) - Number(b.id.slice(1)) || a.checker.localeCompare(b.checker),
    );
}

/** Renders summary.md. */
export function renderSummary(verdict: VerdictFile): string {
  const env = verdict.environment;
  const lines = [
    `# leaseproof run ${md(verdict.runId)}: ${verdictWord(verdict.verdict)}` +
      (verdict.expectations === undefined
        ? ''
        : `, expectations ${outcomeWords(verdict.expectations.outcome)}`),
    '',
    `Started ${verdict.startedAt}, finished ${verdict.finishedAt}. ` +
      `leaseproof ${md(env.leaseproof)}, PostgreSQL ${md(env.postgres)}, ` +
      `Toxiproxy ${md(env.toxiproxy)}, Node.js ${md(env.node)}` +
      `${env.provider === null ? '' : `, ${md(env.provider)} environment`}.`,
    ...(verdict.interrupted === null
      ? []
      : [
          '',
          `**Interrupted by ${md(verdict.interrupted)}**: the last scenario's history was cut ` +
            'where the run stopped (judged on what was recorded), and the scenarios after it did ' +
            'not run.',
        ]),
    ...(verdict.expectations === undefined
      ? []
      : ['', ...expectationsSection(verdict.expectations)]),
    '',
    '## Verdict',
    '',
    ...table(verdict),
    '',
    '✅ valid · ⚠️ valid with warnings · ❌ invalid · ❓ unknown · – not checked. ' +
      'Times below: since the scenario started, and on the database clock.',
  ];
  lines.push(...notJudgedSection(verdict));
  for (const s of verdict.scenarios) {
    const flagged = s.checkers.filter((c) => c.verdict !== 'valid' || c.warnings.length > 0);
    if (flagged.length > 0) lines.push('', ...scenarioSection(s, flagged));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * What the harness could not judge, and why: an `error` cell is never a pass, and the reader of
 * a red (or an oddly short) summary must see it before the evidence.
 */
function notJudgedSection(verdict: VerdictFile): string[] {
  const cells = verdict.notJudged ?? [];
  const harness = verdict.harnessErrors ?? [];
  if (cells.length === 0 && harness.length === 0) return [];
  const lines = ['', '## Not judged', ''];
  for (const h of harness) lines.push(`- Harness: ${md(h)}`);
  for (const n of cells) {
    const tries = n.attempts === undefined ? '' : `, ${n.attempts} attempts`;
    lines.push(
      `- 🛑 ${md(n.name)} × ${md(n.queue)} (seed ${n.seed}${tries}): error — ${md(n.cause)}`,
    );
  }
  lines.push(
    '',
    'A harness failure in one run does not touch the others; these cells have no verdict, and ' +
      'the command exits 2 unless another run is invalid.',
  );
  return lines;
}

const OUTCOME_MARK = { met: '✅', 'not-met': '❌', 'not-judged': '❓' } as const;

/**
 * What the run was to prove (`--expect`), above the verdict: a run that catches a known-bad
 * queue on purpose is INVALID overall, and says here that this is what it was for.
 */
function expectationsSection(e: VerdictExpectations): string[] {
  const header = ['queue', 'expected', 'actual', 'scenarios', 'expectation'];
  const rows = e.items.map((i) => [
    md(i.queue),
    i.verdict,
    i.actual === 'not-run' ? 'not run' : i.actual,
    String(i.scenarios),
    `${OUTCOME_MARK[i.outcome]} ${outcomeWords(i.outcome)}`,
  ]);
  return [
    `## Expectations: ${outcomeWords(e.outcome)}`,
    '',
    `${OUTCOME_MARK[e.outcome]} ${md(capitalized(expectationsLine(e)))}. The exit code follows the expectations, not the verdict.`,
    '',
    ...[header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`),
  ];
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function verdictWord(v: Verdict): string {
  return v === 'invalid' ? 'INVALID' : v;
}

function cell(c: CheckerVerdict | undefined): string {
  if (c === undefined) return '–';
  if (c.verdict === 'valid' && c.warnings.length > 0) return '⚠️ valid';
  return `${MARK[c.verdict]} ${c.verdict === 'invalid' ? '**invalid**' : c.verdict}`;
}

function table(verdict: VerdictFile): string[] {
  const columns = invariantColumns(verdict);
  const header = ['scenario', 'queue', ...columns.map((c) => `${c.id} ${c.checker}`), 'verdict'];
  const rows = verdict.scenarios.map((s) => [
    `[${md(s.label)}](${s.files.timeline})`,
    md(s.queue),
    ...columns.map((col) => cell(s.checkers.find((c) => c.checker === col.checker))),
    `${MARK[s.verdict]} ${verdictWord(s.verdict)}`,
  ]);
  return [header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`);
}

function scenarioSection(s: ScenarioVerdict, flagged: CheckerVerdict[]): string[] {
  const { durationMs, heartbeatMs, extendByMs, pollMs } = s.lease;
  const lines = [
    `## ${md(s.label)}: ${verdictWord(s.verdict)}`,
    '',
    `Queue ${md(s.queue)}, seed ${s.seed}; lease ${durationMs}ms, heartbeat ${heartbeatMs}ms, ` +
      `extend by ${extendByMs}ms, poll ${pollMs}ms; ε ${s.options.epsilonMs}ms. ` +
      `${s.complete ? '' : 'The history was cut short. '}` +
      `[Timeline](${s.files.timeline}) · [history](${s.files.history})`,
  ];
  const terms = queueTermsLines(s.queueTerms).map((line) => `- ${md(line)}`);
  if (terms.length > 0) lines.push('', ...terms);
  for (const c of flagged) lines.push('', ...checkerSection(s, c));
  return lines;
}

function checkerSection(s: ScenarioVerdict, c: CheckerVerdict): string[] {
  const counts = Object.entries(c.counts)
    .map(([k, v]) => `${md(k)}=${v}`)
    .join(', ');
  const mark = c.verdict === 'valid' ? '⚠️' : MARK[c.verdict];
  const lines = [`### ${mark} ${c.id} ${md(c.checker)}: ${c.verdict} (${counts})`, ''];
  if (c.why !== null) {
    lines.push(`${c.verdict === 'n/a' ? 'Why not applicable' : 'Why unknown'}: ${md(c.why)}`, '');
  }
  for (const w of c.warnings) lines.push(`- Warning: ${md(w)}`);
  if (c.warnings.length > 0) lines.push('');
  const kind = c.verdict === 'invalid' ? 'Violation' : 'Example';
  c.evidence.slice(0, SUMMARY_EVIDENCE).forEach((e, n) => {
    const [first, ...rest] = evidenceLines(e, s.historyStartedAt);
    lines.push(`${n + 1}. ${kind}: ${md(first!)}`, ...rest.map((l) => `   - ${md(l)}`));
  });
  const more = c.evidence.length - SUMMARY_EVIDENCE;
  if (more > 0) lines.push('', `…and ${more} more evidence items in verdict.json.`);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}
