/**
 * Property-based exploration. fast-check draws whole scenarios (workers, lease, handler shape,
 * workload and a fault schedule); each is run for real — real worker processes, PostgreSQL and
 * Toxiproxy, in a fresh database of one environment reused across runs — and judged by every
 * checker with strict causes. The property is that no invariant is violated. On a failure
 * fast-check shrinks the schedule within the same wall-time budget, and the minimal
 * counterexample is written as a scenario file that `leaseproof run` replays.
 */
import fc from 'fast-check';
import { basename, resolve } from 'node:path';
import type { ScenarioRun } from '../report/types.js';
import { writeRunReport } from '../report/write-run-report.js';
import { checkHistory } from '../checker/index.js';
import { selectEnvironment } from '../env/select-env.js';
import type { StartedEnvironment } from '../env/types.js';
import { ConfigError, EnvironmentError } from '../errors.js';
import { executeRun } from '../scenario/execute-run.js';
import { scenarioToRunPlan } from '../scenario/load-scenario.js';
import { confirmCounterexample } from './confirm-counterexample.js';
import { scenarioArbitrary } from './scenario-arbitrary.js';
import { toScenario } from './scenario-document.js';
import type { ExploreOptions, ExploreProgress, ExploreResult } from './types.js';
import { writeCounterexample } from './write-counterexample.js';
import { laneSeeds } from './lane-seeds.js';
import { WHOLE } from '../scale-out/shard.js';

/** Searches for a scenario that makes `options.queue` violate a lease invariant. */
export async function explore(options: ExploreOptions): Promise<ExploreResult> {
  checkOptions(options);
  if (options.env) return exploreIn(options.env, options);
  const provider = await selectEnvironment({ ...(options.log && { log: options.log }) });
  const env = await provider.start();
  try {
    return await exploreIn(env, options);
  } finally {
    await env.stop();
  }
}

function checkOptions({ runs, seed, budgetMs, parallel }: ExploreOptions): void {
  if (!Number.isInteger(runs) || runs < 1) {
    throw new ConfigError(`explore needs runs ≥ 1; got ${runs}`);
  }
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new ConfigError(`explore needs an integer seed in [0, 4294967295]; got ${seed}`);
  }
  if (!(budgetMs > 0)) throw new ConfigError(`explore needs a positive budget; got ${budgetMs}ms`);
  if (parallel !== undefined && !(Number.isInteger(parallel) && parallel >= 1)) {
    throw new ConfigError(`explore needs parallel ≥ 1 (a whole number); got ${parallel}`);
  }
}

async function exploreIn(env: StartedEnvironment, options: ExploreOptions): Promise<ExploreResult> {
  const started = performance.now();
  const elapsed = (): number => Math.round(performance.now() - started);
  const progress: ExploreProgress = {
    phase: 'search',
    runsDone: 0,
    failures: 0,
    shrinks: 0,
    elapsedMs: 0,
  };
  let firstFailureMs = NaN;
  // The checkers each failing scenario violated, by its text: fast-check hands back the value,
  // not the verdict.
  const violatedBy = new Map<string, string[]>();
  // The lane whose failure is shrunk: the first to fail. Every other lane then stops (passes
  // every draw and shrink candidate unrun), so only one search holds the machine while shrinking.
  let winner: number | undefined;
  // The run that failed first, as it happened: its history and verdict are written beside the
  // counterexample, so a failure that does not reproduce still has its evidence.
  let firstFailure: ScenarioRun | undefined;

  let budgetSpent = false;
  let harnessError: { error: unknown; drawn: string; after: number } | undefined;
  const property = (lane: number) =>
    fc.asyncProperty(scenarioArbitrary, async (drawn) => {
      // The budget is kept here, not by fast-check's interruptAfterTimeLimit: that one races the
      // running property with a timer and would leave a real run going on behind its back. Past
      // the budget every remaining draw or shrink candidate passes at once, unrun, so the search
      // ends, and shrinking ends on the smallest failure found so far.
      if (elapsed() >= options.budgetMs) {
        budgetSpent = true;
        return true;
      }
      // After a harness error nothing more is run: the search stops and says so below.
      if (harnessError !== undefined) return true;
      if (winner !== undefined && winner !== lane) return true;
      if (winner === lane) progress.shrinks += 1;
      const scenario = toScenario(drawn, { name: 'explore', seed: options.seed, description: '' });
      const runStarted = performance.now();
      let history;
      try {
        ({ history } = await executeRun(
          env,
          scenarioToRunPlan(scenario, { queue: options.queue }),
        ));
      } catch (error) {
        // The harness failed (a proxy it could not set up, a server that went away), not the
        // queue: that is no counterexample to shrink. The search stops and reports it.
        harnessError ??= { error, drawn: JSON.stringify(drawn), after: progress.runsDone };
        return true;
      }
      const result = checkHistory(history, { strictCauses: true });
      const violated = result.results.filter((r) => r.valid === 'invalid').map((r) => r.checker);
      progress.runsDone += 1;
      progress.elapsedMs = elapsed();
      progress.last = {
        valid: result.valid,
        violated,
        durationMs: Math.round(performance.now() - runStarted),
      };
      // An `unknown` verdict (a checker that could not judge) is not a counterexample.
      const holds = result.valid !== 'invalid';
      if (!holds && (winner === undefined || winner === lane)) {
        progress.failures += 1;
        violatedBy.set(JSON.stringify(drawn), violated);
        if (winner === undefined) {
          winner = lane;
          firstFailure = { history, result };
          firstFailureMs = elapsed();
          progress.phase = 'shrink';
        }
      }
      options.onProgress?.({ ...progress });
      // A lane that failed after another had already won passes: its failure is not shrunk.
      return holds || (winner !== undefined && winner !== lane);
    });

  const lanes = laneSeeds(
    options.seed,
    options.runs,
    options.parallel ?? 1,
    options.shard ?? WHOLE,
  );
  const details = await Promise.all(
    lanes.map((lane, i) => fc.check(property(i), { numRuns: lane.runs, seed: lane.seed })),
  );
  const won = winner === undefined ? undefined : details[winner];
  // A harness error while shrinking only cuts shrinking short: the smallest failure so far stands.
  if (harnessError !== undefined && won === undefined) {
    throw new EnvironmentError(
      `explore stopped after ${harnessError.after} run(s): the next run failed in the harness, ` +
        `not in the queue (seed ${options.seed}, drawn scenario ${harnessError.drawn})`,
      { cause: harnessError.error },
    );
  }
  if (won === undefined || !won.failed || won.counterexample === null) {
    return {
      failed: false,
      runsDone: progress.runsDone,
      interrupted: budgetSpent,
      elapsedMs: elapsed(),
    };
  }
  const [minimal] = won.counterexample;
  const violated = violatedBy.get(JSON.stringify(minimal)) ?? [];
  const path = won.counterexamplePath ?? '';
  const confirmed = await confirmCounterexample(env, options.queue, minimal, violated);
  const file = await writeCounterexample(
    options.outDir ?? resolve('reports', 'counterexamples'),
    confirmed.scenario,
    {
      queue: options.queue,
      seed: lanes[winner!]!.seed,
      path,
      violated,
      note:
        `${confirmed.stretched ? 'Stretched from the minimal schedule so that it reproduces: its faults are held for at least two leases and every worker has a job (shrinking stops at the edge of the failure, a fault of one lease, fewer jobs than workers); ' : ''}` +
        `it reproduced on ${confirmed.reproduced} of ${confirmed.replays} replays.`,
    },
  );
  const firstFailureReport = file.replace(/\.ya?ml$/, '') + '.first-failure';
  await writeRunReport(firstFailureReport, {
    id: basename(firstFailureReport),
    startedAt: new Date(Date.now() - elapsed()),
    finishedAt: new Date(),
    scenarios: [firstFailure!],
  });
  return {
    failed: true,
    file,
    firstFailureReport,
    violated,
    replayCommand: `leaseproof run ${file} --queue ${options.queue}`,
    shrinks: progress.shrinks,
    runsDone: progress.runsDone,
    firstFailureMs,
    elapsedMs: elapsed(),
    scenario: confirmed.scenario,
    minimal,
    reproduced: confirmed.reproduced,
    replays: confirmed.replays,
    counterexamplePath: path,
    laneSeed: lanes[winner!]!.seed,
  };
}
