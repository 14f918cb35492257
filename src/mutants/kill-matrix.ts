import type { ScenarioOutcome } from '../run/run-scenarios.js';
import {
  KILL_MATRIX_VERSION,
  type KillCell,
  type KillMatrix,
  type SimulatedCell,
  type SimulationGuide,
  type VariantRow,
} from '../report/kill-matrix-types.js';

/** A variant as the matrix needs it: its name, what changed, and the checker that must catch it. */
export interface VariantSpec {
  queue: string;
  change: string;
  catches: string;
}

/** What `buildKillMatrix` judges. */
export interface KillMatrixInput {
  /** Every scenario × queue outcome of the run (base and variants). */
  outcomes: readonly ScenarioOutcome[];
  /** The scenarios, in run order. */
  scenarios: readonly string[];
  /** The base queue's name. */
  base: string;
  /** Other correct queues run on every scenario beside the base (default none). */
  controls?: readonly string[] | undefined;
  /** The variants. */
  variants: readonly VariantSpec[];
  /** Kills each variant needs. */
  minKills: number;
  /** Wall time, ms. */
  wallTimeMs: number;
  /**
   * Why a cell was not run for real (a simulation-guided matrix): its cell says so and kills
   * nothing. A cell missing without a reason is `unknown`, as before.
   */
  notRun?: ((queue: string, scenario: string) => string | undefined) | undefined;
  /** What the simulation said of a cell, kept beside the real verdict. */
  simulated?: ((queue: string, scenario: string) => SimulatedCell | undefined) | undefined;
  /** How the simulation guided the matrix. */
  guide?: SimulationGuide | undefined;
  /** The run folder of a cell that ran in another folder than the matrix's (see `KillCell.report`). */
  reportOf?: ((queue: string, scenario: string) => string | undefined) | undefined;
}

/**
 * Judges a matrix run. A scenario missing for a queue (the run stopped early) counts as a cell
 * with verdict `unknown`: it kills nothing and, for the base, is a false alarm, so a partial run
 * can never look clean.
 */
export function buildKillMatrix(input: KillMatrixInput): KillMatrix {
  const byKey = new Map(input.outcomes.map((o) => [`${o.queue}\u0000${o.scenario}`, o]));
  const cellsOf = (queue: string, named: string | undefined): KillCell[] =>
    input.scenarios.map((scenario): KillCell => {
      const outcome = byKey.get(`${queue}\u0000${scenario}`);
      const simulated = input.simulated?.(queue, scenario);
      const sim = simulated === undefined ? {} : { simulated };
      if (outcome === undefined) {
        const notRun = input.notRun?.(queue, scenario);
        return {
          scenario,
          verdict: 'unknown',
          invalid: [],
          named: false,
          ...(notRun !== undefined && { notRun }),
          ...sim,
        };
      }
      const invalid = outcome.result.results
        .filter((r) => r.valid === 'invalid')
        .map((r) => r.checker);
      const report = input.reportOf?.(queue, scenario);
      return {
        scenario,
        verdict: outcome.result.valid,
        invalid,
        named: named !== undefined && invalid.includes(named),
        ...sim,
        ...(report !== undefined && { report }),
      };
    });
  const baseCells = cellsOf(input.base, undefined);
  // The base runs everywhere, guided or not: a base cell not run is a false alarm all the same.
  const falseAlarms = baseCells.filter((c) => c.verdict !== 'valid').map((c) => c.scenario);
  const controls = (input.controls ?? []).map((queue) => {
    const cells = cellsOf(queue, undefined);
    return {
      queue,
      cells,
      falseAlarms: cells.filter((c) => c.verdict !== 'valid').map((c) => c.scenario),
    };
  });
  const variants: VariantRow[] = input.variants.map((v) => {
    const cells = cellsOf(v.queue, v.catches);
    const kills = cells.filter((c) => c.named).length;
    const caught = cells.some((c) => c.verdict === 'invalid');
    return {
      queue: v.queue,
      change: v.change,
      catches: v.catches,
      cells,
      kills,
      status: kills > 0 ? 'killed' : caught ? 'misattributed' : 'survived',
    };
  });
  const killed = variants.filter((v) => v.status === 'killed').length;
  const total = variants.length;
  const weak = variants.filter((v) => v.kills < input.minKills).map((v) => v.queue);
  return {
    version: KILL_MATRIX_VERSION,
    scenarios: [...input.scenarios],
    base: { queue: input.base, cells: baseCells, falseAlarms },
    controls,
    variants,
    score: { killed, total, percent: total === 0 ? 0 : Math.round((killed / total) * 1000) / 10 },
    minKills: input.minKills,
    weak,
    ok:
      falseAlarms.length === 0 &&
      controls.every((c) => c.falseAlarms.length === 0) &&
      total > 0 &&
      killed === total &&
      weak.length === 0,
    wallTimeMs: input.wallTimeMs,
    ...(input.guide !== undefined && { guide: input.guide }),
  };
}
