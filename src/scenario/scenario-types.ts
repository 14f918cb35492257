/**
 * A scenario as the harness uses it: a validated scenario file with every duration in
 * milliseconds, every default filled in, and workers named by id (`w2`).
 */
import type { CheckOptions } from '../checker/types.js';
import type { FaultSpec } from '../nemesis/fault-spec.js';
import type { LeaseSettings } from '../queue/types.js';
import type { StatedSettings } from '../queue/library-settings.js';
import type { HandlerShape } from './durations.js';

/** The workload of a scenario. */
export interface ScenarioJobs {
  /** How many jobs. */
  count: number;
  /** Jobs enqueued per second; absent: all at once before the workers start. */
  ratePerSecond?: number;
  /**
   * What each job's handler does; `checkpoint`: it commits a cursor after each unit;
   * `failAttempts`: the first this-many attempts of each job end in an error; `ignoresAbort`:
   * it never checks its abort signal, so a cancelled handler runs on to its end.
   */
  handler: HandlerShape & { checkpoint: boolean; failAttempts: number; ignoresAbort: boolean };
  /** Attempts before dead-lettering; absent: the queue's default. */
  maxAttempts?: number;
}

/** A loaded scenario. */
export interface Scenario {
  /** The file it came from, as named to the loader. */
  file: string;
  /** Its name in reports. */
  name: string;
  /** What it reproduces. */
  description: string;
  /** Seed of the workload. */
  seed: number;
  /** Lease settings. */
  lease: LeaseSettings;
  /** Number of workers (`w1` … `wN`). */
  workers: number;
  /** The workload. */
  jobs: ScenarioJobs;
  /** The fault timeline, in file order. */
  faults: FaultSpec[];
  /** The checkers to run, by name. */
  check: string[];
  /** How they judge (only what the file sets; the rest is the checkers' defaults). */
  checkOptions: Partial<CheckOptions>;
  /** How long to wait for the queue to drain once the faults are healed. */
  drainTimeoutMs: number;
  /** Whether dead-lettered jobs count as done. */
  allowDeadLetter: boolean;
  /**
   * A library's own settings, by library key and the library's own names, in its own units
   * (`river: { JobTimeout: 10m }`): a run against that library uses them instead of its
   * defaults. Empty when the file states none.
   */
  settings: Readonly<Record<string, StatedSettings>>;
}
