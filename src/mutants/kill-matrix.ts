import type { ScenarioOutcome } from '../run/run-scenarios.js';
import {
  KILL_MATRIX_VERSION,
  type KillCell,
  type KillMatrix,
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
  /** The variants. */
  variants: readonly VariantSpec[];
  /** Kills each variant needs. */
  minKills: number;
  /** Wall time, ms. */
  wallTimeMs: number;
}

/**
 * Judges a matrix run. A scenario missing for a queue (the run stopped early) counts as a cell
 * with verdict `unknown`: it kills nothing and, for the base, is a false alarm, so a partial run
 * can never look clean.
 */
export function buildKillMatrix(input: KillMatrixInput): KillMatrix {
  const byKey = new Map(input.outcomes.map((o) => [`${o.queue}\u0000${o.scenario}`, o]));
  const cellsOf = (queue: string, named: string | undefined): KillCell[] =>
    input.scenarios.map((scenario) => {
      const outcome = byKey.get(`${queue}\u0000${scenario}`);
      if (outcome === undefined) return { scenario, verdict: 'unknown', invalid: [], named: false };
      const invalid = outcome.result.results
        .filter((r) => r.valid === 'invalid')
        .map((r) => r.checker);
      return {
        scenario,
        verdict: outcome.result.valid,
        invalid,
        named: named !== undefined && invalid.includes(named),
      };
    });
  const baseCells = cellsOf(input.base, undefined);
  const falseAlarms = baseCells.filter((c) => c.verdict !== 'valid').map((c) => c.scenario);
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
    variants,
    score: { killed, total, percent: total === 0 ? 0 : Math.round((killed / total) * 1000) / 10 },
    minKills: input.minKills,
    weak,
    ok: falseAlarms.length === 0 && total > 0 && killed === total && weak.length === 0,
    wallTimeMs: input.wallTimeMs,
  };
}
