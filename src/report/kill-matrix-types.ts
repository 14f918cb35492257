/**
 * The mutation matrix: the curated suite run against known-bad variants of a correct queue, as a
 * mutation tester runs a test suite against mutants of the code. A variant is *killed* when a
 * scenario finds it invalid on the invariant that names its bug; caught only by other invariants
 * it is *mis-attributed* (the verdict points at the wrong cause); valid everywhere it *survived*.
 * The base queue must stay valid on every scenario: a false alarm there voids the matrix.
 */
import type { Verdict } from '../checker/types.js';

/** Version of `mutants.json`; a reader refuses another major version. */
export const KILL_MATRIX_VERSION = 1;

/** One variant × scenario. */
export interface KillCell {
  /** The scenario. */
  scenario: string;
  /** The overall verdict of the run. */
  verdict: Verdict;
  /** The checkers that judged it invalid, by name. */
  invalid: string[];
  /** Whether the invariant that names the variant's bug is among them. */
  named: boolean;
}

/** How a variant fared over the whole suite. */
export type VariantStatus = 'killed' | 'misattributed' | 'survived';

/** One variant's row of the matrix. */
export interface VariantRow {
  /** The variant's queue name. */
  queue: string;
  /** The one part that differs from the base, in a few words. */
  change: string;
  /** The checker that must catch it. */
  catches: string;
  /** Its cells, in scenario order. */
  cells: KillCell[];
  /** Scenarios in which the named checker caught it. */
  kills: number;
  /** See `VariantStatus`. */
  status: VariantStatus;
}

/** The whole matrix, as `mutants.json` holds it. */
export interface KillMatrix {
  /** `KILL_MATRIX_VERSION`. */
  version: number;
  /** The scenarios, in run order. */
  scenarios: string[];
  /** The correct queue the variants were made from, and how it fared. */
  base: { queue: string; cells: KillCell[]; falseAlarms: string[] };
  /** One row per variant. */
  variants: VariantRow[];
  /** Killed variants over all variants. */
  score: { killed: number; total: number; percent: number };
  /** Kills each variant needs (`--min-kills`). */
  minKills: number;
  /** Variants killed by fewer scenarios than `minKills`. */
  weak: string[];
  /** Base clean, every variant killed by its named invariant at least `minKills` times. */
  ok: boolean;
  /** Wall time of the whole matrix, ms. */
  wallTimeMs: number;
}
