/** What the derivation pass accumulates; shared by its parts (`derive-audit`, `derive-work`). */
import { DerivedJob, DerivedWorker, type DerivedClaim } from './derive-types.js';
import { CallWrites } from './call-writes.js';
import type { HistoryEvent, HistoryHeader } from './types.js';

/** How far a fail's write may lie outside its call's span, where only times can match them. */
const FAIL_TIME_TOLERANCE_MS = 10;

/** The state of one derivation pass. */
export class DerivationState {
  readonly jobs = new Map<string, DerivedJob>();
  readonly claims: DerivedClaim[] = [];
  /** The latest claim of each holder. */
  readonly byHolder = new Map<string, DerivedClaim>();
  readonly workers = new Map<string, DerivedWorker>();
  /** Apps that act as workers: the header's, and any app that was granted a claim. */
  readonly workerApps: Set<string>;
  /** Effect and worker events whose claim was not known yet when they were read. */
  readonly deferred: number[] = [];
  readonly warnings: string[] = [];
  /** Which of a worker's calls made an audit write, by backend identity. */
  readonly calls: CallWrites;
  /** Audit writes that only returned an expired claim to the queue (see `DerivedHistory.sweeps`). */
  readonly sweeps = new Set<number>();
  private failWriteSet: Set<number> | undefined;

  constructor(
    readonly events: HistoryEvent[],
    header: HistoryHeader,
  ) {
    this.workerApps = new Set(header.workers);
    // Tolerance 0: only the identity answer (`callOf`) is asked here. A call alone on its
    // connection reaches a lease beyond its own span, as unmoved-extensions has it.
    this.calls = new CallWrites(events, 0, header.lease.durationMs);
    for (const id of header.workers) this.workers.set(id, new DerivedWorker(id));
  }

  /** The audit writes made by workers' fail calls; found on first need. */
  get failWrites(): Set<number> {
    // A history without backends matches a fail by time: its worker times may be off the
    // database clock by a few ms either way.
    this.failWriteSet ??= this.calls.failWrites(FAIL_TIME_TOLERANCE_MS);
    return this.failWriteSet;
  }

  /** The job, created on first sight. */
  job(id: string): DerivedJob {
    let job = this.jobs.get(id);
    if (job === undefined) {
      job = new DerivedJob(id);
      this.jobs.set(id, job);
    }
    return job;
  }

  /** The worker, created on first sight. */
  workerOf(id: string): DerivedWorker {
    let worker = this.workers.get(id);
    if (worker === undefined) {
      worker = new DerivedWorker(id);
      this.workers.set(id, worker);
    }
    return worker;
  }
}
