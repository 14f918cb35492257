/**
 * What one point of a tuning sweep is, and what simulating it measures.
 */
import type { DurationDistribution } from '../scenario/durations.js';
import type { UnitPlan } from '../worker/types.js';

/** Faults as rates, per worker and hour of simulated time, with their durations. */
export interface FaultModel {
  /** Worker crashes (SIGKILL) per worker-hour; a crashed worker restarts after `restartAfterMs`. */
  crashesPerWorkerHour: number;
  /** How long a crashed worker stays down. */
  restartAfterMs: number;
  /** Process pauses (GC, VM migration) per worker-hour. */
  pausesPerWorkerHour: number;
  /** How long a pause lasts. */
  pause: DurationDistribution;
  /** Network partitions of one worker per worker-hour. */
  partitionsPerWorkerHour: number;
  /** How long a partition lasts. */
  partition: DurationDistribution;
}

/** One point of the sweep, everything in milliseconds of simulated (uncompressed) time. */
export interface SimPoint {
  /** The lease (visibility timeout). */
  leaseMs: number;
  /** Heartbeat period; null: no heartbeat at all (the lease must cover the whole job). */
  heartbeatMs: number | null;
  /** How far an extension moves the deadline. */
  extendByMs: number;
  /** Idle poll interval. */
  pollMs: number;
}

/** The workload and the world a point is simulated in. */
export interface SimWorkload {
  /** A job's total handler duration, drawn afresh for every execution. */
  duration: DurationDistribution;
  /** Cancellation points per job: the handler is cut into this many equal units. */
  units: number;
  /** Worker loops sharing the queue. */
  workers: number;
  /** Jobs simulated. */
  jobs: number;
  /** Job arrivals per second (Poisson); absent: all jobs are there at time zero. */
  arrivalsPerSecond?: number;
  /** Attempts before a job is dead-lettered. */
  maxAttempts: number;
  /** Which faults strike the simulated workers, and how often. */
  faults: FaultModel;
  /** One database round trip. */
  rttMs: number;
  /** The seed: the same seed gives the same result. */
  seed: number;
  /** Each job's units, given instead of drawn (a real run's plans, to compare with it). */
  plans?: UnitPlan[][];
  /** Faults at fixed times, on top of the rates (a real run's timeline, to compare with it). */
  schedule?: ScheduledFault[];
}

/** A fault at a fixed simulated time on one worker (`w1` …). */
export interface ScheduledFault {
  atMs: number;
  worker: string;
  kind: 'crash' | 'pause' | 'partition';
  /** How long a pause or partition lasts; for a crash, when the worker restarts. */
  forMs: number;
}

/** p50 / p99 / max of a sample, NaN when empty. */
export interface Spread {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** What simulating one point measured. */
export interface SimResult {
  point: SimPoint;
  jobs: number;
  completed: number;
  dead: number;
  /** Jobs neither completed nor dead when the simulation gave up (see `horizonMs`). */
  unfinished: number;
  /** Executions beyond a job's first, per 1,000 jobs. */
  duplicatesPer1000: number;
  /** Jobs executed more than once, per 1,000 jobs. */
  duplicatedJobsPer1000: number;
  /** …of which after a claim lost while its holder was under a fault (crash, pause, partition). */
  faultDuplicatesPer1000: number;
  /** …of which after a claim lost with no fault on its holder: the handler outlasted the lease. */
  leaseDuplicatesPer1000: number;
  /** Expiries with no fault on the holder, per 1,000 jobs. */
  unexplainedExpiriesPer1000: number;
  /** From a crash of a worker holding a job to that job's next grant. */
  crashStallMs: Spread;
  /** Extension statements per second of simulated time, per worker. */
  heartbeatWritesPerWorkerSecond: number;
  /** …over all workers. */
  heartbeatWritesPerSecond: number;
  /** Completed jobs per second of simulated time. */
  throughputPerSecond: number;
  /** Simulated time until the last job finished. */
  simulatedMs: number;
  /** Wall time the simulation took. */
  wallMs: number;
  /** Timers the simulation fired (each a step of some worker's code): its cost in wall time. */
  steps: number;
}
