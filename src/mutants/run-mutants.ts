import { writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { runGuided } from './guided-mutants.js';
import { suiteOptions } from './suite-options.js';
import { runScenarios, type RunScenariosOptions } from '../run/run-scenarios.js';
import { ConfigError } from '../errors.js';
import { KNOWN_BAD_VARIANTS } from '../queue/known-bad-queues.js';
import { CONTROL_QUEUES } from '../queue/control-queues.js';
import { referenceQueue } from '../queue/reference-queue.js';
import { closest } from '../suggest.js';
import { updateReportIndex } from '../report/report-index.js';
import { buildKillMatrix, type VariantSpec } from './kill-matrix.js';
import { renderKillMatrixHtml } from '../report/kill-matrix-html.js';
import type { KillMatrix } from '../report/kill-matrix-types.js';

/**
 * What `leaseproof mutants` was asked to do: a suite run (files, reports folder, environment, ε,
 * parallelism, progress, abort — as for `runScenarios`; an abort builds the matrix from what ran)
 * over the base queue and its variants.
 */
export interface MutantsOptions extends Pick<
  RunScenariosOptions,
  | 'files'
  | 'out'
  | 'env'
  | 'epsilonMs'
  | 'iOwnThisDatabase'
  | 'log'
  | 'parallel'
  | 'parallelIsDefault'
  | 'signal'
> {
  /** The correct queue the built-in variants are variants of (`reference`). */
  base: string;
  /**
   * Other correct queues run on every scenario beside the base, which must stay valid too
   * (default: the built-in controls, `CONTROL_QUEUES`, when the base is `reference`; else none).
   */
  controls?: string[] | undefined;
  /** Only these variants (default: every built-in one). */
  variants?: string[] | undefined;
  /** Kills each variant needs (default 1). */
  minKills?: number | undefined;
  /**
   * Run every scenario against every variant for real (the full matrix) instead of letting the
   * simulation choose the real runs (see guided-mutants.ts).
   */
  full?: boolean | undefined;
}

/** What a matrix run produced. */
export interface MutantsResult {
  /** The judged matrix. */
  matrix: KillMatrix;
  /** The report folder (also holds mutants.json and mutants.html). */
  dir: string;
}

/** The built-in variants to run: all, or the named ones (an unknown name is an error). */
export function selectVariants(names: readonly string[] | undefined): VariantSpec[] {
  const all = KNOWN_BAD_VARIANTS.map((v) => ({
    queue: v.queue.name,
    change: v.change,
    catches: v.catches,
  }));
  if (names === undefined || names.length === 0) return all;
  return names.map((name) => {
    const found = all.find((v) => v.queue === name);
    if (found === undefined) {
      const names = all.map((v) => v.queue);
      const guess = closest(name, names);
      throw new ConfigError(
        `--variant ${name}: no such known-bad variant${guess === undefined ? '' : ` (did you mean ${guess}?)`}; ` +
          `the variants are ${names.join(', ')}`,
      );
    }
    return found;
  });
}

/**
 * Runs the base queue and each variant — guided by the simulation (default), or every scenario
 * against every variant for real (`full`) — judges the kill matrix, and writes it beside the
 * run's report (`mutants.json`, `mutants.html`), where the reports index shows it.
 */
export async function runMutants(options: MutantsOptions): Promise<MutantsResult> {
  const variants = selectVariants(options.variants);
  const minKills = options.minKills ?? 1;
  if (!Number.isInteger(minKills) || minKills < 1) {
    throw new ConfigError(`--min-kills must be an integer >= 1; got ${String(options.minKills)}`);
  }
  const controls = options.controls ?? defaultControls(options.base);
  const started = performance.now();
  if (options.full !== true) {
    const guided = await runGuided({ ...options, controls }, variants, minKills);
    const matrix = buildKillMatrix({
      outcomes: guided.outcomes,
      scenarios: guided.scenarios,
      base: options.base,
      controls,
      variants,
      minKills,
      wallTimeMs: performance.now() - started,
      notRun: guided.notRun,
      simulated: guided.simulated,
      guide: guided.guide,
      reportOf: guided.reportOf,
    });
    return writeMatrix(matrix, guided.dir, options.out);
  }
  const run = await runScenarios({
    files: options.files,
    queues: [options.base, ...controls, ...variants.map((v) => v.queue)],
    ...suiteOptions(options),
  });
  const scenarios = [...new Set(run.outcomes.map((o) => o.scenario))];
  const matrix = buildKillMatrix({
    outcomes: run.outcomes,
    scenarios,
    base: options.base,
    controls,
    variants,
    minKills,
    wallTimeMs: performance.now() - started,
  });
  return writeMatrix(matrix, run.dir, options.out);
}

/** The built-in controls go with the built-in base; another base's variants are the user's. */
function defaultControls(base: string): string[] {
  return base === referenceQueue.name ? CONTROL_QUEUES.map((q) => q.name) : [];
}

/** Writes the matrix beside its run's report, where the reports index shows it. */
async function writeMatrix(matrix: KillMatrix, dir: string, out: string): Promise<MutantsResult> {
  const runId = basename(dir);
  await writeFile(join(dir, 'mutants.json'), JSON.stringify(matrix, null, 2) + '\n');
  await writeFile(join(dir, 'mutants.html'), renderKillMatrixHtml(matrix, runId));
  await updateReportIndex(resolve(out));
  return { matrix, dir };
}
