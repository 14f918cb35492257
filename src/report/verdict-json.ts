/**
 * `verdict.json`: the run's verdict as data (schema in `verdict-types.ts`), for CI and tools.
 * Built from the checkers' results as they are; nothing is re-judged here.
 */
import type { CheckResult, Verdict } from '../checker/types.js';
import { historyEnd } from '../history/jsonl.js';
import { finiteOrNull } from './escape.js';
import { judgeExpectations } from './expectations.js';
import { scenarioName, type ScenarioNames } from './scenario-labels.js';
import type { RunReport, ScenarioRun } from './types.js';
import {
  VERDICT_VERSION,
  type CheckerVerdict,
  type NotJudgedVerdict,
  type ScenarioVerdict,
  type VerdictEnvironment,
  type VerdictFile,
} from './verdict-types.js';

/** The file names of a scenario's history and timeline, given its stem. */
export function scenarioFiles(stem: string): { history: string; timeline: string } {
  return { history: `${stem}.history.jsonl.gz`, timeline: `${stem}.timeline.html` };
}

/** Composes verdicts as Jepsen does: invalid > unknown > valid (= n/a, which is never worst). */
export function worstVerdict(verdicts: Iterable<Verdict>): Verdict {
  let worst: Verdict = 'valid';
  for (const v of verdicts) {
    if (v === 'invalid') return 'invalid';
    if (v === 'unknown') worst = 'unknown';
  }
  return worst;
}

/** The verdict file of a run; `names` are the scenarios' labels and stems, in run order. */
export function buildVerdict(run: RunReport, names: readonly ScenarioNames[]): VerdictFile {
  const scenarios = run.scenarios.map((s, i) => scenarioVerdict(s, names[i]!));
  const notJudged = (run.notJudged ?? []).map((n): NotJudgedVerdict => ({
    name: n.name,
    queue: n.queue,
    seed: n.seed,
    verdict: 'error',
    cause: n.cause,
    ...(n.position !== undefined && { position: n.position }),
    ...(n.attempts !== undefined && { attempts: n.attempts }),
  }));
  const harnessFailed = notJudged.length > 0 || (run.harnessErrors?.length ?? 0) > 0;
  return {
    verdictVersion: VERDICT_VERSION,
    runId: run.id,
    startedAt: run.startedAt.toISOString(),
    finishedAt: run.finishedAt.toISOString(),
    // Not judged is not valid: a run with an error cell is unknown unless something is invalid.
    verdict: worstVerdict([
      ...scenarios.map((s) => s.verdict),
      ...(harnessFailed ? ['unknown' as const] : []),
    ]),
    environment: environment(run),
    scenarios,
    ...(notJudged.length > 0 && { notJudged }),
    ...(run.harnessErrors !== undefined &&
      run.harnessErrors.length > 0 && { harnessErrors: run.harnessErrors }),
    interrupted: run.interrupted ?? null,
    ...(run.plan !== undefined && {
      plan: {
        shard: { index: run.plan.shard.index, count: run.plan.shard.count },
        size: run.plan.size,
        fingerprint: run.plan.fingerprint,
      },
    }),
    ...(run.expectations !== undefined &&
      run.expectations.length > 0 && {
        expectations: judgeExpectations([...scenarios, ...notJudged], run.expectations),
      }),
  };
}

/** `verdict` as the text of verdict.json (non-finite numbers as null). */
export function renderVerdictJson(verdict: VerdictFile): string {
  return `${JSON.stringify(verdict, finiteOrNull, 2)}\n`;
}

function environment(run: RunReport): VerdictEnvironment {
  const header = run.scenarios[0]?.history.header.versions;
  const given = run.environment ?? {};
  return {
    provider: given.provider ?? null,
    leaseproof: given.leaseproof ?? header?.leaseproof ?? 'unknown',
    postgres: given.postgres ?? header?.postgres ?? 'unknown',
    toxiproxy: given.toxiproxy ?? header?.toxiproxy ?? 'unknown',
    node: given.node ?? header?.node ?? process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

function scenarioVerdict(run: ScenarioRun, names: ScenarioNames): ScenarioVerdict {
  const { header, events } = run.history;
  const end = historyEnd(run.history);
  const lastT = events[events.length - 1]?.t ?? header.startedAt;
  const { epsilonMs, staleAck, strictCauses, maxEvidence } = run.result.options;
  return {
    label: names.label,
    name: scenarioName(run),
    queue: header.queue,
    seed: header.seed,
    verdict: run.result.valid,
    lease: header.lease,
    ...(header.queueTerms !== undefined && { queueTerms: header.queueTerms }),
    historyStartedAt: header.startedAt,
    durationMs: (end?.t ?? lastT) - header.startedAt,
    complete: end !== undefined,
    drained: end?.drained ?? false,
    events: events.length,
    options: { epsilonMs, staleAck, strictCauses, maxEvidence },
    checkers: run.result.results.map(checkerVerdict),
    files: scenarioFiles(names.stem),
    ...(run.position !== undefined && { position: run.position }),
    ...(run.attempts !== undefined && run.attempts > 1 && { attempts: run.attempts }),
  };
}

function checkerVerdict(r: CheckResult): CheckerVerdict {
  return {
    checker: r.checker,
    id: r.id,
    verdict: r.valid,
    counts: r.counts,
    evidence: r.evidence,
    stats: r.stats ?? {},
    epsilonMs: r.epsilonMs,
    warnings: r.warnings ?? [],
    why: r.why ?? null,
  };
}
