import type { RunDatabase, StartedEnvironment } from '../env/types.js';
import type { LeaseSettings } from '../queue/types.js';
import type { FaultKind, QueueTermsRecord } from './types.js';

/** What a `HistoryRecorder` needs to know about the run it records. */
export interface HistoryRecorderOptions {
  /** The run database, reached directly (never through a worker's proxy). */
  database: RunDatabase;
  /** The scenario's name (or a test's). */
  scenario: string;
  /** The seed all randomness came from. */
  seed: number;
  /** The queue under test, as named in reports. */
  queue: string;
  /** The lease settings of the run. */
  lease: LeaseSettings;
  /** The workers' ids. */
  workers: string[];
  /** Toxiproxy's version; when absent it is asked of `env`, else recorded as `unknown`. */
  toxiproxyVersion?: string;
  /** The environment, to ask for Toxiproxy's version. */
  env?: Pick<StartedEnvironment, 'describe'>;
  /** Whether the scenario allows dead-lettered jobs to count as done. */
  allowDeadLetter?: boolean;
  /** The scenario's `failAttempts`, when its handler fails early attempts by plan. */
  failAttempts?: number;
  /** How the queue took the lease, when not plainly (see `HistoryHeader.queueTerms`). */
  queueTerms?: QueueTermsRecord;
}

/** A fault starting or ending, timed on the controller's clock. */
export interface NemesisRecord {
  /** Controller `Date.now()` when it happened (default: when recorded). */
  at?: number;
  /** start or end. */
  phase: 'start' | 'end';
  /** Which fault. */
  fault: FaultKind;
  /** A worker id, or `db` for the database. */
  target: string;
  /** Pairs a start with its end. */
  id: string;
  /** The fault's parameters, for reports. */
  detail?: Record<string, unknown>;
}
