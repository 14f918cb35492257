/**
 * Scenario files: YAML in the shape of `scenarios/schema.json` (design.md, "Scenario file"),
 * loaded into a typed `Scenario` and turned into a `RunPlan` for the timeline executor. A file
 * that cannot be run is one `ScenarioError` listing every problem with its place in the file.
 */
import { readFile } from 'node:fs/promises';
import { buildScenario } from './build-scenario.js';
import { formatPath } from './document-path.js';
import { drawHandlerPlans } from './durations.js';
import type { RunPlan } from './execute-run.js';
import { Random } from '../random.js';
import { ScenarioError, type ScenarioProblem } from './scenario-error.js';
import { scenarioSchema, validateScenarioShape } from './scenario-schema.js';
import type { Scenario } from './scenario-types.js';
import { schemaProblems, type PathProblem } from './schema-problems.js';
import { parseYamlSource, type YamlSource } from './yaml-source.js';
import type { StatedSettings } from '../queue/library-settings.js';

/** Reads, parses and validates a scenario file; throws one `ScenarioError` for a bad file. */
export async function loadScenario(file: string): Promise<Scenario> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const reason = code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory' : message;
    throw new ScenarioError(file, [{ path: '', found: reason, expected: 'a readable YAML file' }], {
      cause: error,
    });
  }
  return parseScenario(text, file);
}

/** Parses and validates scenario text; `file` names it in errors. */
export function parseScenario(text: string, file = '<scenario>'): Scenario {
  const source = parseYamlSource(text, file);
  if (source.data === null || source.data === undefined) {
    throw new ScenarioError(file, [
      {
        path: '',
        found: 'an empty document',
        expected: 'a scenario with name, lease, workers, jobs and check',
      },
    ]);
  }
  const shapeErrors = validateScenarioShape(source.data);
  if (shapeErrors.length > 0) {
    throw new ScenarioError(file, place(source, schemaProblems(shapeErrors, scenarioSchema())));
  }
  const { scenario, problems } = buildScenario(source.data as Record<string, unknown>, file);
  if (problems.length > 0) throw new ScenarioError(file, place(source, problems));
  return scenario;
}

/** Options of `scenarioToRunPlan`. */
export interface ScenarioRunOptions {
  /** Built-in queue name or adapter path. */
  queue: string;
  /** Overrides the scenario's seed (`--seed`). */
  seed?: number;
  /** The queue's library settings from the command line (`--setting Name=value`). */
  settings?: StatedSettings;
}

/** The run plan of a scenario (a `RunPlan`; named for what it was made from). */
export type ScenarioRunPlan = RunPlan;

/**
 * The run plan of a scenario against one queue: the workload drawn from the seed (the same seed
 * gives the same handler durations, unit for unit) and the scenario's fault timeline. The plan is
 * plain data: run it as often as needed.
 */
export function scenarioToRunPlan(
  scenario: Scenario,
  options: ScenarioRunOptions,
): ScenarioRunPlan {
  const seed = options.seed ?? scenario.seed;
  const { jobs } = scenario;
  return {
    scenario: scenario.name,
    seed,
    queue: options.queue,
    workers: scenario.workers,
    lease: { ...scenario.lease },
    plans: drawHandlerPlans(jobs.handler, jobs.count, new Random(seed)),
    ...(jobs.maxAttempts !== undefined && { maxAttempts: jobs.maxAttempts }),
    ...(jobs.handler.checkpoint && { checkpoint: true }),
    ...(jobs.handler.ignoresAbort && { ignoresAbort: true }),
    ...(jobs.handler.failAttempts > 0 && { failAttempts: jobs.handler.failAttempts }),
    ...(jobs.ratePerSecond !== undefined && { enqueueRatePerSecond: jobs.ratePerSecond }),
    allowDeadLetter: scenario.allowDeadLetter,
    faults: structuredClone(scenario.faults),
    drainTimeoutMs: scenario.drainTimeoutMs,
    ...((Object.keys(scenario.settings).length > 0 ||
      Object.keys(options.settings ?? {}).length > 0) && {
      librarySettings: {
        byLibrary: structuredClone(scenario.settings),
        ...(options.settings !== undefined && { command: { ...options.settings } }),
        source:
          options.settings !== undefined && Object.keys(options.settings).length > 0
            ? `${scenario.file} and --setting`
            : scenario.file,
      },
    }),
  };
}

/** Gives each problem its line and column, drops repeats, and sorts them in file order. */
export function place(source: YamlSource, problems: PathProblem[]): ScenarioProblem[] {
  const seen = new Set<string>();
  return problems
    .filter((p) => {
      const key = JSON.stringify([p.path, p.found, p.expected]);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    })
    .map((p) => {
      const position = source.locate(p.path, { key: p.atKey === true });
      return {
        path: formatPath(p.path),
        ...(position && { line: position.line, column: position.column }),
        found: p.found,
        expected: p.expected,
      };
    })
    .sort((a, b) => (a.line ?? 0) - (b.line ?? 0) || (a.column ?? 0) - (b.column ?? 0));
}
