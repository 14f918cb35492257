/**
 * Names for the scenarios of a run: the label a report shows (the scenario's name, with the
 * queue when a run holds the same name twice, as `suite` against two queues does) and the stem
 * of its files. Scenario names come from user files, so the stem keeps only characters that are
 * safe in a file name and a URL on every platform.
 */
import type { ScenarioRun } from './types.js';

/** A scenario's label and the stem of its file names. */
export interface ScenarioNames {
  /** What reports call it. */
  label: string;
  /** `<stem>.history.jsonl.gz`, `<stem>.timeline.html`. */
  stem: string;
}

/** The scenario name of a run entry: its own `name`, or its history's. */
export function scenarioName(run: ScenarioRun): string {
  return run.name ?? run.history.header.scenario;
}

/**
 * Labels and unique file stems for the scenarios of a run, in order. A name is told apart by
 * its queue when it occurs twice in `planNames` — the whole plan's names, so that a shard labels
 * its scenarios as the unsharded run does — or, without a plan, in `runs`.
 */
export function scenarioNames(
  runs: readonly ScenarioRun[],
  planNames: readonly string[] = runs.map(scenarioName),
): ScenarioNames[] {
  return labelRuns(
    runs.map((run) => ({ name: scenarioName(run), queue: run.history.header.queue })),
    planNames,
  );
}

/** Labels and unique stems for runs given by name and queue (`merge` has no histories). */
export function labelRuns(
  runs: readonly { name: string; queue: string }[],
  planNames: readonly string[] = runs.map((r) => r.name),
): ScenarioNames[] {
  const counts = new Map<string, number>();
  for (const name of planNames) counts.set(name, (counts.get(name) ?? 0) + 1);
  const stems = new Set<string>();
  return runs.map(({ name, queue }) => {
    const label = (counts.get(name) ?? 0) > 1 ? `${name} [${queue}]` : name;
    const base = fileStem(label);
    let stem = base;
    for (let n = 2; stems.has(stem); n += 1) stem = `${base}-${n}`;
    stems.add(stem);
    return { label, stem };
  });
}

/**
 * `label` with its queue, once: `pause-past-lease [unconditional-ack]`. A label already ends
 * with its queue when the run holds the name twice (see `labelRuns`), and a title that added
 * it again read "pause-past-lease [unconditional-ack] [unconditional-ack]".
 */
export function withQueue(label: string, queue: string): string {
  const suffix = ` [${queue}]`;
  return label.endsWith(suffix) ? label : `${label}${suffix}`;
}

/** `text` reduced to lower-case letters, digits, `.`, `_` and `-` (never empty). */
export function fileStem(text: string): string {
  const stem = text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[.-]+|-+$/g, '')
    .slice(0, 80);
  return stem === '' ? 'scenario' : stem;
}
