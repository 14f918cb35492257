/**
 * The schema of `verdict.json`: the machine-readable verdict of a run. It is versioned
 * (`verdictVersion`) so that tools reading old report folders can tell what they hold; a field
 * is only ever added within a version, never renamed or removed.
 *
 * Times of the run itself (`startedAt`, `finishedAt`) are ISO strings on the controller's
 * clock; every time inside a scenario (evidence, `historyStartedAt`) is ms since the epoch on
 * the database clock, as in the history. A number that is not finite (a claim granted without
 * a deadline) is written as `null`.
 */
import type { Distribution, Evidence, InvariantId, Verdict } from '../checker/types.js';
import type { LeaseSettings } from '../queue/types.js';
import type { QueueTermsRecord } from '../history/types.js';

/** The version of this schema. */
export const VERDICT_VERSION = 1;

/** Versions of the parts a run used. */
export interface VerdictEnvironment {
  /** Which provider started the servers, when known. */
  provider: string | null;
  /** leaseproof's version. */
  leaseproof: string;
  /** PostgreSQL's version. */
  postgres: string;
  /** Toxiproxy's version. */
  toxiproxy: string;
  /** Node.js's version. */
  node: string;
  /** `process.platform`-`process.arch` of the controller. */
  platform: string;
}

/** One checker's verdict on one scenario. */
export interface CheckerVerdict {
  /** The checker's name, e.g. `no-stale-ack`. */
  checker: string;
  /** Its invariant id, e.g. `I1`. */
  id: InvariantId;
  /** valid / invalid / unknown. */
  verdict: Verdict;
  /** What was examined and what was found, by name. */
  counts: Record<string, number>;
  /** Evidence of the violations (invalid) or of the warnings (valid), as the checker gave it. */
  evidence: Evidence[];
  /** Distributions and figures; empty when the invariant asks for none. */
  stats: Record<string, Distribution | number>;
  /** The ε the verdict was reached with, in ms. */
  epsilonMs: number;
  /** What is suspicious but not a violation. */
  warnings: string[];
  /** Why the verdict is unknown, or why the property does not apply (n/a); null otherwise. */
  why: string | null;
}

/** Links from the verdict to the other files of the run's folder (relative paths). */
export interface ScenarioFiles {
  /** The history, JSONL. */
  history: string;
  /** The HTML timeline. */
  timeline: string;
}

/** One scenario run against one queue. */
export interface ScenarioVerdict {
  /** The scenario as reported: its name, with the queue when a run holds the name twice. */
  label: string;
  /** The scenario's name. */
  name: string;
  /** The queue under test. */
  queue: string;
  /** The seed all randomness came from. */
  seed: number;
  /** invalid > unknown > valid over its checkers. */
  verdict: Verdict;
  /** The lease settings of the run. */
  lease: LeaseSettings;
  /**
   * How the queue took the scenario's lease when not plainly (a lease rounded to its unit, a
   * library constant rescaled, no lease extension, a background sweep); absent otherwise.
   */
  queueTerms?: QueueTermsRecord;
  /** When the scenario's history starts (database clock, ms since the epoch). */
  historyStartedAt: number;
  /** How long the history lasts, in ms (to its end event, or its last event if cut). */
  durationMs: number;
  /** Whether the history ends with an end event (false: it was cut short). */
  complete: boolean;
  /** Whether every job reached a terminal state before the drain timeout. */
  drained: boolean;
  /** Number of events in the history. */
  events: number;
  /** How the checkers judged: ε, stale-ack mode, strict causes, evidence kept. */
  options: {
    epsilonMs: number;
    staleAck: 'strict' | 'fenced';
    strictCauses: boolean;
    maxEvidence: number;
  };
  /** Each checker's verdict, in the order they ran. */
  checkers: CheckerVerdict[];
  /** The scenario's files. */
  files: ScenarioFiles;
  /** Its position in the whole plan (0-based), when the run was planned (`suite`, `run`). */
  position?: number;
  /**
   * How many times it ran, when more than once: harness starvation left the earlier runs
   * `unknown`, and this is the last run's verdict.
   */
  attempts?: number;
}

/** The whole plan a run was a shard of (`--shard i/n`; `1/1` unsharded). */
export interface VerdictPlan {
  /** This run's shard. */
  shard: { index: number; count: number };
  /** Scenario × queue runs in the whole plan. */
  size: number;
  /** Shards of one plan share it (see src/scale-out/plan-info.ts). */
  fingerprint: string;
}

/** Where a merged run came from. */
export interface VerdictMergedFrom {
  /** The shard's run id. */
  runId: string;
  /** Its folder, as given to `merge`. */
  dir: string;
  /** Its shard, when it was one. */
  shard: { index: number; count: number } | null;
}

/**
 * A scenario × queue the harness could not judge (an `error` cell): no history, only why. A run
 * holding one is `unknown` overall unless another scenario is invalid.
 */
export interface NotJudgedVerdict {
  /** The scenario's name. */
  name: string;
  /** The queue. */
  queue: string;
  /** The seed it would have run with. */
  seed: number;
  /** Always `error`. */
  verdict: 'error';
  /** What went wrong, with its causes. */
  cause: string;
  /** Its position in the whole plan (0-based), when the run was planned. */
  position?: number;
  /** How many times it ran (the harness failed in every one); absent when once. */
  attempts?: number;
}

/** A verdict a queue is expected to get over its scenarios: `--expect queue=verdict`. */
export interface ExpectedVerdict {
  /** The queue, as the run named it. */
  queue: string;
  /** What the run is to prove about it: that it holds (`valid`) or that it is caught (`invalid`). */
  verdict: 'valid' | 'invalid';
}

/**
 * A queue's verdict over its scenarios as an expectation sees it: invalid > error > unknown >
 * valid, `not-run` when none of the run's scenarios ran against it. `error` is a run the
 * harness itself failed: it says nothing of the queue, but one proven violation elsewhere does.
 */
export type ExpectationActual = Verdict | 'error' | 'not-run';

/**
 * `met`: the queue got the expected verdict. `not-met`: it got the other one (valid for
 * invalid, or invalid for valid). `not-judged`: the run could not tell (unknown, error, not run).
 */
export type ExpectationOutcome = 'met' | 'not-met' | 'not-judged';

/** One expectation, judged. */
export interface VerdictExpectation extends ExpectedVerdict {
  /** The queue's verdict over its scenarios. */
  actual: ExpectationActual;
  /** How many of the run's scenarios ran against the queue. */
  scenarios: number;
  /** Met, not met, or not judged. */
  outcome: ExpectationOutcome;
  /** `outcome === 'met'`, for a reader that wants a yes or no. */
  met: boolean;
}

/** The run's expectations: what its exit code was decided by, instead of its verdict. */
export interface VerdictExpectations {
  /** `not-met` if any is not met, else `not-judged` if any is not judged, else `met`. */
  outcome: ExpectationOutcome;
  /** Whether every expectation is met. */
  met: boolean;
  /** Each expectation, in the order given. */
  items: VerdictExpectation[];
}

/** The whole `verdict.json`. */
export interface VerdictFile {
  /** `VERDICT_VERSION`. */
  verdictVersion: typeof VERDICT_VERSION;
  /** The run id. */
  runId: string;
  /** When the run started (ISO, controller clock). */
  startedAt: string;
  /** When the run finished (ISO, controller clock). */
  finishedAt: string;
  /** invalid > unknown > valid over every scenario; a scenario not judged counts as unknown. */
  verdict: Verdict;
  /** Versions of the parts. */
  environment: VerdictEnvironment;
  /** The scenarios, in the order they ran. */
  scenarios: ScenarioVerdict[];
  /**
   * The scenario runs the harness could not judge, in plan order; absent when there were none
   * (and in older files).
   */
  notJudged?: NotJudgedVerdict[];
  /** Failures of the environment itself (start, stop); absent when there were none. */
  harnessErrors?: string[];
  /** What interrupted the run (`SIGINT`, `SIGTERM`), or null when it ran to its end. */
  interrupted: string | null;
  /** The plan it was (a shard of); absent for runs outside a plan and in older files. */
  plan?: VerdictPlan;
  /** The runs `leaseproof merge` made this one of; absent for a run that ran. */
  mergedFrom?: VerdictMergedFrom[];
  /**
   * `--expect`: the verdicts the run was to prove and whether it did (the run's exit code
   * follows them, not `verdict`); absent when none were given, and in older files.
   */
  expectations?: VerdictExpectations;
}
