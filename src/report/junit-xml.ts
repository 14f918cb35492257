/**
 * `junit.xml`: the run as CI systems read test results. One `<testsuite>` per scenario (× queue),
 * one `<testcase>` per invariant checked in it: `classname` is the scenario's label, `name` the
 * checker's. An invalid verdict is a `<failure>` whose text is the evidence in words; an unknown
 * verdict is an `<error>` — the harness could not tell, which must not pass silently, just as the
 * CLI exits 2 for it. Warnings of a valid verdict go to the test case's `<system-out>`.
 */
import { evidenceLines } from './describe-evidence.js';
import { escapeXml as x } from './escape.js';
import { withQueue } from './scenario-labels.js';
import type {
  CheckerVerdict,
  NotJudgedVerdict,
  ScenarioVerdict,
  VerdictFile,
} from './verdict-types.js';

/** Renders junit.xml. */
export function renderJunit(verdict: VerdictFile): string {
  const suites = [
    ...verdict.scenarios.map((s) => suite(s, verdict.startedAt)),
    ...(verdict.notJudged ?? []).map((n) => notJudgedSuite(n, verdict.startedAt)),
  ];
  const all = verdict.scenarios.flatMap((s) => s.checkers);
  const errors = verdict.notJudged?.length ?? 0;
  const time = (Date.parse(verdict.finishedAt) - Date.parse(verdict.startedAt)) / 1000;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${x(`leaseproof ${verdict.runId}`)}" ${tally(all, errors)} time="${seconds(time)}">`,
    ...suites,
    '</testsuites>',
    '',
  ].join('\n');
}

function tally(checkers: CheckerVerdict[], notJudged = 0): string {
  const n = (v: string): number => checkers.filter((c) => c.verdict === v).length;
  return (
    `tests="${checkers.length + notJudged}" failures="${n('invalid')}" ` +
    `errors="${n('unknown') + notJudged}" skipped="${n('n/a')}"`
  );
}

/** A run the harness could not judge: one test case in error, with the cause. */
function notJudgedSuite(n: NotJudgedVerdict, timestamp: string): string {
  const name = `${n.name} [${n.queue}]`;
  return [
    `  <testsuite name="${x(name)}" tests="1" failures="0" errors="1" skipped="0" time="0" ` +
      `timestamp="${x(timestamp.replace(/Z$/, ''))}">`,
    `    <testcase classname="${x(n.name)}" name="harness">`,
    `      <error message="${x(n.cause)}" type="error">${x(`not judged: ${n.cause}`)}</error>`,
    '    </testcase>',
    '  </testsuite>',
  ].join('\n');
}

function seconds(s: number): string {
  return Number.isFinite(s) && s > 0 ? s.toFixed(3) : '0';
}

function suite(s: ScenarioVerdict, timestamp: string): string {
  const properties = [
    ['queue', s.queue],
    ['seed', String(s.seed)],
    ['verdict', s.verdict],
    ['epsilonMs', String(s.options.epsilonMs)],
    ['timeline', s.files.timeline],
    ['history', s.files.history],
  ];
  return [
    `  <testsuite name="${x(withQueue(s.label, s.queue))}" ${tally(s.checkers)} ` +
      `time="${seconds(s.durationMs / 1000)}" timestamp="${x(timestamp.replace(/Z$/, ''))}">`,
    '    <properties>',
    ...properties.map(([k, v]) => `      <property name="${x(k!)}" value="${x(v!)}"/>`),
    '    </properties>',
    ...s.checkers.map((c) => testCase(s, c)),
    '  </testsuite>',
  ].join('\n');
}

function testCase(s: ScenarioVerdict, c: CheckerVerdict): string {
  const open = `    <testcase classname="${x(s.label)}" name="${x(c.checker)}" time="0"`;
  const counts = Object.entries(c.counts)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  if (c.verdict === 'invalid') {
    const first = c.evidence[0];
    const message = first === undefined ? `${c.id} ${c.checker} violated` : first.message;
    const text = [
      `${c.id} ${c.checker}: invalid (${counts}, ε ${c.epsilonMs}ms)`,
      ...c.evidence.flatMap((e, n) => [
        '',
        `violation ${n + 1}:`,
        ...evidenceLines(e, s.historyStartedAt).map((l) => `  ${l}`),
      ]),
    ].join('\n');
    return [
      `${open}>`,
      `      <failure message="${x(message)}" type="${x(`${c.id} ${c.checker}`)}">${x(text)}</failure>`,
      '    </testcase>',
    ].join('\n');
  }
  if (c.verdict === 'unknown') {
    const why = c.why ?? 'the checker could not tell';
    return [
      `${open}>`,
      `      <error message="${x(why)}" type="unknown">${x(`${c.id} ${c.checker}: unknown: ${why}`)}</error>`,
      '    </testcase>',
    ].join('\n');
  }
  if (c.verdict === 'n/a') {
    // Not a pass and not a failure: the queue does not promise it. CI tools show it as skipped.
    const why = c.why ?? 'the queue does not promise this property';
    return [`${open}>`, `      <skipped message="${x(`n/a: ${why}`)}"/>`, '    </testcase>'].join(
      '\n',
    );
  }
  if (c.warnings.length === 0) return `${open}/>`;
  const out = c.warnings.map((w) => `warning: ${w}`).join('\n');
  return [`${open}>`, `      <system-out>${x(out)}</system-out>`, '    </testcase>'].join('\n');
}
