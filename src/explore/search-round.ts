/**
 * One round of a search: every lane's fast-check run, side by side, from where the lane stopped
 * in the round before, until the first lane to fail has shrunk its failure (or no lane fails).
 * A round ends at a failure because fast-check's `check` does; explore confirms the failure and,
 * if it did not reproduce, starts another round from the next draws (see `explore`).
 */
import fc from 'fast-check';
import type { ScenarioRun } from '../report/types.js';
import type { ExploredScenario } from './explored-scenario.js';
import type { Lane } from './lane-seeds.js';
import { toScenario } from './scenario-document.js';
import type { ExploreProgress, ExploreRun } from './types.js';
import { wallMs } from './wall-clock.js';

/** What lasts across rounds: the clock, the budget, progress, and what stops the search. */
export interface SearchState {
  queue: string;
  seed: number;
  budgetMs: number;
  run: ExploreRun;
  /** What the search draws (all of explore's vocabulary, or what a simulation models). */
  arbitrary: fc.Arbitrary<ExploredScenario>;
  elapsed: () => number;
  progress: ExploreProgress;
  onProgress: ((progress: ExploreProgress) => void) | undefined;
  /** The checkers each failing scenario violated, by its text: fast-check hands back the value. */
  violatedBy: Map<string, string[]>;
  budgetSpent: boolean;
  harnessError: { error: unknown; drawn: string; after: number } | undefined;
}

/** The failure a round shrank. */
export interface RoundFailure {
  /** The lane that failed first. */
  lane: number;
  /** The minimal scenario fast-check shrank to. */
  minimal: ExploredScenario;
  /** fast-check's path to it, from the lane's seed (a round that resumed at k still counts from 0). */
  path: string;
  /** The failing draw's index in the lane's stream: the round after resumes past it. */
  drawIndex: number;
  /** The run that failed first, as it happened: its evidence even when no replay repeats it. */
  firstFailure: ScenarioRun;
  /** When it failed, ms since the search started. */
  firstFailureMs: number;
  /** Shrink candidates tried. */
  shrinks: number;
}

/** A round's end. */
export interface RoundOutcome {
  failure: RoundFailure | undefined;
  /**
   * Per lane, the draws after its start that ran and passed before it stopped: the other lanes
   * stop (pass every draw unrun) once one fails, and resume past these in the next round. A
   * draw that failed after another lane won is not among them, so it is drawn and run again.
   */
  passed: number[];
}

/** Runs lane `i` of `lanes` from draw `start[i]` to its end, or until one lane fails and shrinks. */
export async function searchRound(
  state: SearchState,
  lanes: Lane[],
  start: number[],
): Promise<RoundOutcome> {
  const { progress } = state;
  // The lane whose failure is shrunk: the first to fail. Every other lane then stops, so only
  // one search holds the machine while shrinking.
  let winner: number | undefined;
  let failure: Omit<RoundFailure, 'minimal' | 'path' | 'drawIndex' | 'shrinks'> | undefined;
  let shrinks = 0;
  const passed = lanes.map(() => 0);

  const property = (lane: number) =>
    fc.asyncProperty(state.arbitrary, async (drawn) => {
      // The budget is kept here, not by fast-check's interruptAfterTimeLimit: that one races the
      // running property with a timer and would leave a real run going on behind its back. Past
      // the budget every remaining draw or shrink candidate passes at once, unrun, so the search
      // ends, and shrinking ends on the smallest failure found so far.
      if (state.elapsed() >= state.budgetMs) {
        state.budgetSpent = true;
        return true;
      }
      // After a harness error nothing more is run: the search stops and says so.
      if (state.harnessError !== undefined) return true;
      if (winner !== undefined && winner !== lane) return true;
      if (winner === lane) {
        progress.shrinks += 1;
        shrinks += 1;
      }
      const scenario = toScenario(drawn, { name: 'explore', seed: state.seed, description: '' });
      const runStarted = wallMs();
      let ran: ScenarioRun;
      try {
        ran = await state.run(scenario, state.queue);
      } catch (error) {
        // The harness failed (a proxy it could not set up, a server that went away), not the
        // queue: that is no counterexample to shrink. The search stops and reports it.
        state.harnessError ??= { error, drawn: JSON.stringify(drawn), after: progress.runsDone };
        return true;
      }
      const { result } = ran;
      if (ran.cutShort !== undefined) {
        progress.cutShort += 1;
        progress.cutShortCause = ran.cutShort;
      }
      const violated = result.results.filter((r) => r.valid === 'invalid').map((r) => r.checker);
      progress.runsDone += 1;
      progress.elapsedMs = state.elapsed();
      progress.last = {
        valid: result.valid,
        violated,
        durationMs: Math.round(wallMs() - runStarted),
      };
      // An `unknown` verdict (a checker that could not judge) is not a counterexample.
      const holds = result.valid !== 'invalid';
      if (holds && winner !== lane) passed[lane] = (passed[lane] ?? 0) + 1;
      if (!holds && (winner === undefined || winner === lane)) {
        progress.failures += 1;
        state.violatedBy.set(JSON.stringify(drawn), violated);
        if (winner === undefined) {
          winner = lane;
          failure = { lane, firstFailure: ran, firstFailureMs: state.elapsed() };
          progress.phase = 'shrink';
        }
      }
      state.onProgress?.({ ...progress });
      // A lane that failed after another had already won passes: its failure is not shrunk.
      return holds || (winner !== undefined && winner !== lane);
    });

  const details = await Promise.all(
    lanes.map(async (lane, i) => {
      const from = start[i] ?? 0;
      if (lane.runs - from <= 0) return undefined;
      // fast-check's `path` of one number resumes the lane's seeded stream at that draw (what
      // it replays a counterexample with): the same draws, in the same order, as an unbroken
      // search, and every path it returns still counts from the lane's seed.
      return fc.check(property(i), {
        numRuns: lane.runs - from,
        seed: lane.seed,
        ...(from > 0 && { path: String(from) }),
      });
    }),
  );
  progress.phase = 'search';
  const won = winner === undefined ? undefined : details[winner];
  if (failure === undefined || won === undefined || !won.failed || won.counterexample === null) {
    return { failure: undefined, passed };
  }
  const path = won.counterexamplePath ?? '';
  return {
    failure: {
      ...failure,
      minimal: won.counterexample[0],
      path,
      drawIndex: Number(path.split(':')[0]),
      shrinks,
    },
    passed,
  };
}
