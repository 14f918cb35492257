/**
 * db-scheduler's own settings, by its own names (sources: db-scheduler 16.12.0,
 * `com/github/kagkarlsson/scheduler/…`). The scenario's lease stands for the time after which
 * db-scheduler calls an execution dead, heartbeatInterval × missedHeartbeatsLimit (5 min × 6 =
 * 30 min by default), so k = lease ÷ 30 min and every other duration follows: at the curated
 * lease of 1 s, heartbeatInterval is 1 s / 6, OnFailureRetryLater 5 min / 1800; pollingInterval
 * (10 s / 1800 = 5.6 ms) is held at a floor of 50 ms.
 */
import type { LibrarySettingsSpec } from '../../queue/library-settings.js';

const MINUTE = 60_000;

/**
 * The floor of the two durations db-scheduler hands to its timers as whole milliseconds: its
 * scheduler truncates them with `Duration.toMillis()`, so under 1 ms a timer gets 0.
 */
const WHOLE_MS = 1;

/** The least pollingInterval a JVM here honours (see the floor's why). */
const POLL_FLOOR_MS = 50;

/** db-scheduler's settings spec: its lease is heartbeatInterval × missedHeartbeatsLimit. */
export const dbSchedulerSettings: LibrarySettingsSpec = {
  library: 'db-scheduler',
  anchor: {
    words:
      'heartbeatInterval × missedHeartbeatsLimit (the age of last_heartbeat at which an execution is dead)',
    ms: (v) => v.heartbeatInterval! * v.missedHeartbeatsLimit!,
  },
  settings: [
    {
      name: 'heartbeatInterval',
      kind: 'duration',
      default: 5 * MINUTE,
      where: 'SchedulerBuilder.DEFAULT_HEARTBEAT_INTERVAL (SchedulerBuilder.java:46)',
      floor: {
        ms: WHOLE_MS,
        why:
          'db-scheduler runs its heartbeat and its dead-execution detection with ' +
          'scheduleWithFixedDelay(…, heartbeatInterval.toMillis(), MILLISECONDS) (Scheduler.java:169-178), ' +
          'which refuses a delay of 0',
        drives:
          'the lease itself (heartbeatInterval × missedHeartbeatsLimit, then longer than the ' +
          "scenario's): I1, I6, I7, I8, I9",
      },
      relation: 'every heartbeatInterval the holder writes last_heartbeat from its JVM clock',
    },
    {
      name: 'missedHeartbeatsLimit',
      kind: 'count',
      default: 6,
      min: 4,
      where:
        'SchedulerBuilder.DEFAULT_MISSED_HEARTBEATS_LIMIT (SchedulerBuilder.java:47); the builder ' +
        'refuses less than 4 (SchedulerBuilder.java:111-115)',
      relation:
        'an execution whose last_heartbeat is older than heartbeatInterval × ' +
        'missedHeartbeatsLimit on the looking JVM clock is dead (Scheduler.java:472)',
    },
    {
      name: 'deadExecutionDetectionInterval',
      kind: 'duration',
      default: 10 * MINUTE,
      constant: true,
      defaultFrom: (v) => 2 * v.heartbeatInterval!,
      relation: 'hard-coded as 2 × heartbeatInterval',
      where:
        'Scheduler.detectDeadWaiter = new Waiter(heartbeatInterval.multipliedBy(2)) ' +
        '(Scheduler.java:103), run with a fixed delay (Scheduler.java:169-173)',
    },
    {
      name: 'pollingInterval',
      kind: 'duration',
      default: 10_000,
      where: 'SchedulerBuilder.DEFAULT_POLLING_INTERVAL (SchedulerBuilder.java:45)',
      floor: {
        ms: POLL_FLOOR_MS,
        why:
          'a db-scheduler JVM on this 2-core machine, beside PostgreSQL, Toxiproxy and the other ' +
          'workers, took a median 2 ms but up to 72 ms (90th percentile 18–24 ms) from a ' +
          'completion to its next pick (crash-mid-handler at load 9–11): a poll under the ' +
          "curated scenarios' 50 ms, every queue's poll, would have I8 judge the machine's " +
          "scheduling rather than db-scheduler's (under 1 ms its Waiter would not wait at all)",
        drives:
          'I8 (a free worker is allowed one poll + ε′ to pick an expired job) and how soon a ' +
          'pending job is picked',
      },
      relation:
        "with db-scheduler's FETCH strategy a poll fetches up to 3 × threads due executions " +
        '(SchedulerBuilder.java:44, :50-52)',
    },
    {
      name: 'threads',
      kind: 'count',
      default: 1,
      where:
        'SchedulerBuilder.threads (executorThreads; the library default is 10, ' +
        'SchedulerBuilder.java:61); leaseproof runs 1, one job per worker process, until it runs ' +
        'N jobs per process',
    },
    {
      name: 'shutdownMaxWait',
      kind: 'duration',
      default: 30 * MINUTE,
      where: 'SchedulerBuilder.SHUTDOWN_MAX_WAIT (SchedulerBuilder.java:49)',
      relation:
        'Scheduler.stop() lets the executions in hand finish for up to this long, heartbeating ' +
        'them, then interrupts them and waits up to this long again (Executor.java:66-70)',
    },
    {
      name: 'OnFailureRetryLater',
      kind: 'duration',
      default: 5 * MINUTE,
      where:
        "a one-time task's default failure handler, new OnFailureRetryLater<>(Duration.ofMinutes(5)) " +
        '(task/helper/OneTimeTask.java:29; Tasks.DEFAULT_RETRY_INTERVAL, Tasks.java:25): a user ' +
        "sets it through the task's FailureHandler",
      relation:
        'a failed execution is rescheduled to its failure time + this delay, without a limit on attempts',
    },
  ],
};
