/**
 * River's settings and timing constants by River's own names (v0.51.2), and the one the
 * scenario's lease stands for: **JobTimeout**, the time River gives one attempt of a handler
 * before it cancels the handler's context (default 1 min). Every other duration is River's value
 * × k = lease ÷ JobTimeout: at the curated 1 s lease k = 1/60, so RescueStuckJobsAfter (1 h)
 * runs as 60 s — sixty leases, River's own margin between cutting an attempt and letting another
 * client take the job.
 *
 * The constants River hard-codes are made variables by the build's overlay
 * (clients/go/cmd/river-native/rescale.json) and set from the run's values; the retry backoff's
 * 1 s unit is River's `DefaultClientRetryPolicy` scaled in the Go program.
 */
import type { LibrarySettingsSpec, SettingSpec } from '../../queue/library-settings.js';

const SECOND = 1_000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

// Source paths are River v0.51.2's (the module zip in the Go module cache).
const CLIENT = 'client.go';

/** River's words for the one relation it enforces at NewClient (client.go:626-627, :392-393). */
export const RIVER_RESCUE_RELATION =
  '"RescueStuckJobsAfter must be greater than JobTimeout. Otherwise, jobs would become ' +
  "eligible for rescue while they're still running\" (River's docs on Config.RescueStuckJobsAfter)";

// A process on this 2-core machine shares it with PostgreSQL, Toxiproxy, the controller and the
// other workers: a loop that queries the database more often than every 10 ms would starve the
// processes being judged (three workers polling every 1 ms are ~3 000 fetches a second).
const LOOP_FLOOR_MS = 10;
const loopFloor = (drives: string): SettingSpec['floor'] => ({
  ms: LOOP_FLOOR_MS,
  why: 'a database-polling loop faster than every 10 ms would starve the other processes on this 2-core machine',
  drives,
});
// Below 1 ms a Go timer is no longer what it says (River's own minimum for its fetch settings).
const timerFloor = (why: string, drives: string): SettingSpec['floor'] => ({ ms: 1, why, drives });

const settings: readonly SettingSpec[] = [
  {
    name: 'JobTimeout',
    kind: 'duration',
    default: MINUTE,
    where: `JobTimeoutDefault, ${CLIENT}:53`,
    relation: "the scenario's lease: River cancels an attempt's context after it",
  },
  {
    name: 'RescueStuckJobsAfter',
    kind: 'duration',
    default: HOUR,
    // River: "Defaults to 1 hour, or in cases where JobTimeout has been configured and is
    // greater than 1 hour, JobTimeout + 1 hour" (client.go:528-533).
    defaultFrom: (v) => ((v.JobTimeout ?? 0) > HOUR ? (v.JobTimeout ?? 0) + HOUR : HOUR),
    where: 'JobRescuerRescueAfterDefault, internal/maintenance/job_rescuer.go:30',
    relation:
      "the run's lease for the checkers: after it the leader's rescuer lets another client " +
      `take the job; ${RIVER_RESCUE_RELATION}`,
  },
  {
    name: 'FetchPollInterval',
    kind: 'duration',
    default: SECOND,
    where: `FetchPollIntervalDefault, ${CLIENT}:49 (min 1 ms)`,
    floor: loopFloor(
      "I8's allowance only (how soon a free worker finds a job no notification told it of)",
    ),
    relation: 'River adds a jitter of max(poll / 10, 10 ms) to each wait (producer.go:684)',
  },
  {
    name: 'FetchCooldown',
    kind: 'duration',
    default: 100,
    where: `FetchCooldownDefault, ${CLIENT}:46`,
    floor: timerFloor('FetchCooldownMin, River refuses less', "I8's allowance only"),
  },
  {
    name: 'JobStuckThreshold',
    kind: 'duration',
    default: 10 * SECOND,
    where: `JobStuckThresholdDefault, ${CLIENT}:52`,
    floor: timerFloor('0 would mean its default', 'nothing judged (a warning in the log)'),
    relation:
      'after JobTimeout + this, a handler still running is logged as stuck; leaseproof installs ' +
      'no JobStuckHandler',
  },
  {
    name: 'MaxWorkers',
    kind: 'count',
    default: 1,
    where: 'QueueConfig.MaxWorkers (required, 1 to 10 000; leaseproof runs 1)',
    min: 1,
  },
  {
    name: 'JobRescuerIntervalDefault',
    kind: 'duration',
    default: 30 * SECOND,
    where: 'internal/maintenance/job_rescuer.go:31',
    constant: true,
    floor: loopFloor("I8's sweep allowance"),
    relation: "how often the leader's rescuer looks for running jobs past RescueStuckJobsAfter",
  },
  {
    name: 'JobSchedulerIntervalDefault',
    kind: 'duration',
    default: 5 * SECOND,
    where: 'internal/maintenance/job_scheduler.go:26',
    constant: true,
    floor: loopFloor("I8's sweep allowance"),
    relation:
      'how often the leader makes retryable jobs whose backoff has passed available; also the ' +
      "executor's threshold between writing a retry available or retryable",
  },
  {
    name: 'electIntervalDefault',
    kind: 'duration',
    default: 5 * SECOND,
    where: 'internal/leadership/elector.go:28',
    constant: true,
    floor: loopFloor('how soon a new leader (and so its rescuer) takes over: I8'),
  },
  {
    name: 'electIntervalJitterDefault',
    kind: 'duration',
    default: SECOND,
    where: 'internal/leadership/elector.go:29',
    constant: true,
    floor: timerFloor('a Go timer below 1 ms', 'leader hand-over: I8'),
  },
  {
    name: 'electIntervalTTLPaddingDefault',
    kind: 'duration',
    default: 10 * SECOND,
    where: 'internal/leadership/elector.go:30',
    constant: true,
    floor: timerFloor('a Go timer below 1 ms', 'leader hand-over: I8'),
    relation: "a killed leader's row outlives it by the election interval + this",
  },
  {
    name: 'leaderLocalDeadlineSafetyMargin',
    kind: 'duration',
    default: SECOND,
    where: 'internal/leadership/elector.go:31',
    constant: true,
    floor: timerFloor('a Go timer below 1 ms', 'leader hand-over: I8'),
  },
  {
    name: 'DefaultClientRetryPolicy',
    kind: 'duration',
    default: SECOND,
    where: 'retry_policy.go:30-47, attempt⁴ × 1 s ± 10 %',
    constant: true,
    floor: timerFloor('a Go timer below 1 ms', "I8's sweep allowance"),
    relation: "the unit of River's backoff: a retry waits attempt⁴ × this",
  },
];

/** River 0.51's settings: the lease is JobTimeout. */
export const riverSettings: LibrarySettingsSpec = {
  library: 'river',
  anchor: 'JobTimeout',
  settings,
  refuse: (v) =>
    (v.RescueStuckJobsAfter ?? 0) < (v.JobTimeout ?? 0)
      ? `River's NewClient says "RescueStuckJobsAfter cannot be less than JobTimeout" ` +
        `(client.go:626-627); its docs: ${RIVER_RESCUE_RELATION}`
      : undefined,
};
