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
  /**
   * Why it was not run for real, in a simulation-guided matrix (then `verdict` is `unknown`
   * and it kills nothing); absent when it ran.
   */
  notRun?: string;
  /** What the simulation said of it, in a simulation-guided matrix. */
  simulated?: SimulatedCell;
  /**
   * The run folder (a sibling of the matrix's own) that holds its timeline, when that is not the
   * matrix's: a guided matrix runs in rounds, each with its own folder.
   */
  report?: string;
}

/**
 * A cell as the simulation judged it: its verdict in simulated time on PGlite, or why the
 * simulation could not model the scenario. A lead for choosing what to run for real, never a
 * kill by itself.
 */
export type SimulatedCell =
  { verdict: Verdict; invalid: string[]; named: boolean } | { refused: string };

/** How a simulation-guided matrix was made (absent from a full real matrix). */
export interface SimulationGuide {
  /** Simulated runs, and their wall time in ms. */
  simulatedRuns: number;
  simulatedMs: number;
  /** Real runs made, out of the full matrix's scenarios × queues. */
  realRuns: number;
  fullRuns: number;
  /** Rounds of real runs (each its own report folder, the first holding the matrix). */
  reports: string[];
  /**
   * Variants the simulation killed on fewer than `minKills` scenarios, which were searched for
   * on real runs instead, with why the simulation could not be trusted to find them.
   */
  leftToReal: { queue: string; why: string }[];
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
  /**
   * Other correct queues (controls, e.g. `reap-on-poll`), each run on every scenario like the
   * base: a checker that calls a correct design invalid is a false alarm that voids the matrix.
   */
  controls: { queue: string; cells: KillCell[]; falseAlarms: string[] }[];
  /** One row per variant. */
  variants: VariantRow[];
  /** Killed variants over all variants. */
  score: { killed: number; total: number; percent: number };
  /** Kills each variant needs (`--min-kills`). */
  minKills: number;
  /** Variants killed by fewer scenarios than `minKills`. */
  weak: string[];
  /** Base and controls clean, every variant killed by its named invariant at least `minKills` times. */
  ok: boolean;
  /** Wall time of the whole matrix, ms. */
  wallTimeMs: number;
  /** Present when the simulation chose the real runs (`mutants` without `--full`). */
  guide?: SimulationGuide;
}
