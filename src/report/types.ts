/**
 * What a report is made of. A **run** is one command's work: one or more scenarios, each run
 * against one queue, each leaving a history (on the database clock) and the checkers' verdict
 * on it. The report writers turn a run into files; they never judge anything themselves.
 */
import type { CompositeResult } from '../checker/types.js';
import type { History } from '../history/types.js';
import type { Incident } from '../replay/load-incident.js';
import type { RunPlanInfo } from '../scale-out/plan-info.js';
import type { ExpectedVerdict } from './verdict-types.js';

/** One scenario run against one queue: its history and the checkers' verdict on it. */
export interface ScenarioRun {
  /** The history, as recorded (its header names the scenario, queue and seed). */
  history: History;
  /** The checkers' verdict on `history`. */
  result: CompositeResult;
  /** A name to report the scenario under; the history header's `scenario` when absent. */
  name?: string;
  /** The incident it replays: the timeline then shows the incident's clock and worker names. */
  incident?: Incident;
  /** Its position in the whole plan of a `suite` or `run` (what `merge` orders shards by). */
  position?: number;
  /**
   * How many times it ran: more than once when harness starvation left an earlier run `unknown`
   * or the harness failed in it (this is the last run's history and verdict).
   */
  attempts?: number;
  /**
   * Why the run has no verdict of the checkers' (its `result` is `unknown`): a simulated run a
   * bound cut short (`SimulationBoundError`), whose history is what it recorded until then.
   */
  cutShort?: string;
}

/**
 * A scenario × queue the harness could not judge: its run failed in the harness (a worker that
 * did not start, a server that went away), so there is no history to judge — only the cause.
 */
export interface NotJudgedRun {
  /** The scenario's name. */
  name: string;
  /** The queue. */
  queue: string;
  /** The seed it would have run with. */
  seed: number;
  /** Its position in the whole plan. */
  position?: number;
  /** What went wrong (on the last attempt), with its causes. */
  cause: string;
  /** How many times it ran (the harness failed in every one); absent when once. */
  attempts?: number;
}

/** Versions and place of the environment a run used, for the verdict file. */
export interface RunEnvironment {
  /** Which provider started the servers (`embedded`, `external`, `containers`). */
  provider?: string;
  /** leaseproof's version. */
  leaseproof?: string;
  /** PostgreSQL's version. */
  postgres?: string;
  /** Toxiproxy's version. */
  toxiproxy?: string;
  /** Node.js's version. */
  node?: string;
}

/** A whole run, as `writeRunReport` takes it. */
export interface RunReport {
  /** The run id (the folder's name under `reports/`). */
  id: string;
  /** When the run started (the controller's clock: this is bookkeeping, not evidence). */
  startedAt: Date;
  /** When the run finished. */
  finishedAt: Date;
  /** The environment; missing versions are taken from the first history's header. */
  environment?: RunEnvironment;
  /** The scenarios, in the order they ran. */
  scenarios: ScenarioRun[];
  /** The scenario runs the harness could not judge (`error` cells), with why. */
  notJudged?: NotJudgedRun[];
  /** Failures of the environment itself (it did not start, or did not stop cleanly). */
  harnessErrors?: string[];
  /**
   * Why the run stopped before its end (`SIGINT`, `SIGTERM`): its last scenario's history is
   * cut, and the scenarios after it did not run.
   */
  interrupted?: string | undefined;
  /** The whole plan the run was (a shard of), for `merge`; absent for runs outside a plan. */
  plan?: RunPlanInfo;
  /** `--expect`: verdicts the run is to prove, judged into the report; absent when none. */
  expectations?: readonly ExpectedVerdict[];
}

/** The files of one scenario in a run's folder. */
export interface ScenarioReportPaths {
  /** The scenario as reported (its name, with the queue when a run holds the name twice). */
  label: string;
  /** Its history, as JSONL. */
  history: string;
  /** Its HTML timeline. */
  timeline: string;
}

/** Every file `writeRunReport` wrote, as absolute paths. */
export interface RunReportPaths {
  /** The run's folder. */
  dir: string;
  /** verdict.json. */
  verdict: string;
  /** summary.md. */
  summary: string;
  /** junit.xml. */
  junit: string;
  /** The one copy of ECharts every timeline of the run loads (`assets/echarts.min.js`). */
  echarts: string;
  /** Per scenario, in run order. */
  scenarios: ScenarioReportPaths[];
}
