/**
 * The pure half of `leaseproof merge`: given the verdict files of the shards of one plan, check
 * that they belong together and add up to the whole, and build the merged verdict — scenarios
 * back in the whole plan's order, labelled and named as the unsharded run labels and names
 * them. Nothing is re-judged: each scenario's verdict is the one its shard reached.
 */
import { ConfigError } from '../errors.js';
import { labelRuns } from './scenario-labels.js';
import { scenarioFiles, worstVerdict } from './verdict-json.js';
import { expectedOf, judgeExpectations } from './expectations.js';
import type {
  ExpectedVerdict,
  ScenarioVerdict,
  VerdictFile,
  VerdictMergedFrom,
} from './verdict-types.js';

/** A shard's verdict file and the folder it was read from. */
export interface ShardRun {
  /** The run folder. */
  dir: string;
  /** Its verdict.json. */
  verdict: VerdictFile;
}

/** A scenario of the merged run and where its files come from. */
export interface MergedScenario {
  /** The scenario as the merged verdict holds it (its `files` name the merged folder's files). */
  verdict: ScenarioVerdict;
  /** The shard folder its files are copied from. */
  fromDir: string;
  /** Their names in that folder. */
  fromFiles: { history: string; timeline: string };
}

/** The merged run, before it is written. */
export interface MergePlan {
  /** The merged verdict file. */
  verdict: VerdictFile;
  /** Its scenarios with their sources, in verdict order. */
  scenarios: MergedScenario[];
  /** Things a person should know that do not stop the merge (e.g. runs outside a plan). */
  notes: string[];
}

/**
 * Checks `runs` and merges them into one verdict with id `runId`. Shards of one plan (same
 * fingerprint and count, each index once, every position present unless a shard was
 * interrupted) merge in plan order; runs made before plans were recorded merge in the order
 * given, with a note. Anything else is a ConfigError that names the folders.
 */
export function planMerge(runs: readonly ShardRun[], runId: string): MergePlan {
  if (runs.length === 0) throw new ConfigError('merge needs at least one run folder');
  const notes: string[] = [];
  const planned = runs.filter((r) => r.verdict.plan !== undefined);
  let ordered: { scenario: ScenarioVerdict; run: ShardRun }[];
  let size: number | undefined;
  let fingerprint: string | undefined;
  if (planned.length === 0) {
    notes.push(
      'these runs record no plan (made before --shard existed): merged in the order given',
    );
    ordered = runs.flatMap((run) => run.verdict.scenarios.map((scenario) => ({ scenario, run })));
  } else {
    if (planned.length !== runs.length) {
      const unplanned = runs.filter((r) => r.verdict.plan === undefined).map((r) => r.dir);
      throw new ConfigError(
        `cannot merge shards with runs that record no plan (${unplanned.join(', ')}): ` +
          `merge the shards of one \`suite --shard i/n\` plan`,
      );
    }
    ({ size, fingerprint } = checkShards(runs));
    ordered = runs
      .flatMap((run) => run.verdict.scenarios.map((scenario) => ({ scenario, run })))
      .sort((a, b) => (a.scenario.position ?? 0) - (b.scenario.position ?? 0));
    checkPositions(ordered, size, runs);
  }
  // Cells the shards could not judge stay not judged in the merge, in plan order.
  const notJudged = runs
    .flatMap((r) => r.verdict.notJudged ?? [])
    .sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
  const harnessErrors = runs.flatMap((r) => r.verdict.harnessErrors ?? []);
  const names = labelRuns(ordered.map(({ scenario }) => scenario));
  const scenarios = ordered.map(({ scenario, run }, i): MergedScenario => {
    const { label, stem } = names[i]!;
    return {
      verdict: { ...scenario, label, files: scenarioFiles(stem) },
      fromDir: run.dir,
      fromFiles: scenario.files,
    };
  });
  const expected = mergedExpectations(runs, notes);
  const first = runs[0]!.verdict;
  const interrupted = runs.find((r) => r.verdict.interrupted !== null)?.verdict.interrupted;
  const verdict: VerdictFile = {
    verdictVersion: first.verdictVersion,
    runId,
    startedAt: runs.map((r) => r.verdict.startedAt).sort()[0]!,
    finishedAt: runs
      .map((r) => r.verdict.finishedAt)
      .sort()
      .at(-1)!,
    verdict: worstVerdict([
      ...scenarios.map((s) => s.verdict.verdict),
      ...(notJudged.length > 0 || harnessErrors.length > 0 ? ['unknown' as const] : []),
    ]),
    environment: first.environment,
    scenarios: scenarios.map((s) => s.verdict),
    ...(notJudged.length > 0 && { notJudged }),
    ...(harnessErrors.length > 0 && { harnessErrors }),
    interrupted: interrupted ?? null,
    ...(size !== undefined &&
      fingerprint !== undefined && { plan: { shard: { index: 1, count: 1 }, size, fingerprint } }),
    mergedFrom: runs.map((r): VerdictMergedFrom => ({
      runId: r.verdict.runId,
      dir: r.dir,
      shard: r.verdict.plan?.shard ?? null,
    })),
    ...(expected.length > 0 && {
      expectations: judgeExpectations([...scenarios.map((s) => s.verdict), ...notJudged], expected),
    }),
  };
  return { verdict, scenarios, notes };
}

/**
 * The `--expect` of the shards, judged again over the merged scenarios: a shard judged only the
 * scenarios it ran (another shard may hold every run of a queue), the merge judges them all.
 * Shards of one plan are given the same flags; if they were not, every expectation any shard
 * had is judged, and a note says so. Runs older than expectations have none.
 */
function mergedExpectations(runs: readonly ShardRun[], notes: string[]): ExpectedVerdict[] {
  const lists = runs.map((r) => expectedOf(r.verdict.expectations));
  const key = (e: ExpectedVerdict): string => `${e.queue}=${e.verdict}`;
  const all = [...new Map(lists.flat().map((e) => [key(e), e])).values()];
  const same = lists.every((l) => l.map(key).join(' ') === lists[0]!.map(key).join(' '));
  if (!same) {
    notes.push(
      `the runs were given different --expect: the merged run is judged against all of them ` +
        `(${all.map(key).join(', ')})`,
    );
  }
  return all;
}

/** One plan, each shard once, none missing; returns the plan's size and fingerprint. */
function checkShards(runs: readonly ShardRun[]): { size: number; fingerprint: string } {
  const plans = new Map<string, string[]>();
  for (const run of runs) {
    const plan = run.verdict.plan!;
    const key = `${plan.fingerprint} (${plan.shard.count} shards, ${plan.size} runs)`;
    plans.set(key, [...(plans.get(key) ?? []), run.dir]);
  }
  if (plans.size > 1) {
    throw new ConfigError(
      `these runs are not shards of one plan — ${[...plans].map(([key, dirs]) => `plan ${key}: ${dirs.join(', ')}`).join('; ')}. ` +
        'Shards of one plan run the same scenario files, queues, --seed and --epsilon, split with the same n.',
    );
  }
  const {
    size,
    fingerprint,
    shard: { count },
  } = runs[0]!.verdict.plan!;
  const byIndex = new Map<number, string[]>();
  for (const run of runs) {
    const index = run.verdict.plan!.shard.index;
    byIndex.set(index, [...(byIndex.get(index) ?? []), run.dir]);
  }
  for (const [index, dirs] of byIndex) {
    if (dirs.length > 1) {
      throw new ConfigError(
        `shard ${index}/${count} was given twice (${dirs.join(', ')}): keep one of them`,
      );
    }
  }
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length > 0) {
    throw new ConfigError(
      `shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} ` +
        `missing: none of the folders given holds ${missing.length > 1 ? 'them' : 'it'} ` +
        `(found ${[...byIndex.keys()]
          .sort((a, b) => a - b)
          .map((i) => `${i}/${count}`)
          .join(', ')})`,
    );
  }
  return { size, fingerprint };
}

/** Every position of the plan once; a gap is allowed only behind an interrupted shard. */
function checkPositions(
  ordered: readonly { scenario: ScenarioVerdict; run: ShardRun }[],
  size: number,
  runs: readonly ShardRun[],
): void {
  const seen = new Set<number>();
  // A cell the harness could not judge still holds its place in the plan.
  for (const run of runs) {
    for (const n of run.verdict.notJudged ?? []) if (n.position !== undefined) seen.add(n.position);
  }
  for (const { scenario, run } of ordered) {
    const p = scenario.position;
    if (p === undefined || p < 0 || p >= size || seen.has(p)) {
      throw new ConfigError(
        `${run.dir}/verdict.json: scenario "${scenario.label}" has position ${String(p)}, ` +
          `expected a position of the ${size}-run plan not held by another scenario`,
      );
    }
    seen.add(p);
  }
  if (seen.size < size && !runs.some((r) => r.verdict.interrupted !== null)) {
    throw new ConfigError(
      `the shards hold ${seen.size} of the plan's ${size} runs and none was interrupted: ` +
        'a verdict.json was edited or cut',
    );
  }
}
