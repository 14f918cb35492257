package leaseproof.dbscheduler;

import java.time.Duration;
import leaseproof.client.Config;

/**
 * The run's lease in db-scheduler's settings. db-scheduler (16.7.1, Scheduler.java) takes an
 * execution for dead once its {@code last_heartbeat} is older than {@code heartbeatInterval ×
 * missedHeartbeatsLimit} on the JVM clock of the scheduler that looks, and looks every {@code 2
 * × heartbeatInterval}; its builder refuses a limit under 4. So: limit = the lease's duration
 * over its heartbeat, rounded, at least 4; heartbeatInterval = duration / limit (the lease is
 * kept exactly). Library defaults that are minutes long (the failed attempt's retry delay, the
 * shutdown wait) are compressed by k = the run's poll / db-scheduler's default poll (10 s), as
 * the River target compresses River's. src/libraries/db-scheduler/adapter.ts computes the same numbers
 * for the run's lease terms.
 *
 * @param heartbeatInterval SchedulerBuilder.heartbeatInterval
 * @param missedHeartbeatsLimit SchedulerBuilder.missedHeartbeatsLimit
 * @param pollingInterval SchedulerBuilder.pollingInterval: the run's poll
 * @param retryDelay OnFailureRetryLater's delay (library default for a one-time task: 5 min)
 * @param shutdownMaxWait SchedulerBuilder.shutdownMaxWait (library default 30 min)
 */
public record LeaseMapping(
    Duration heartbeatInterval,
    int missedHeartbeatsLimit,
    Duration pollingInterval,
    Duration retryDelay,
    Duration shutdownMaxWait) {

  /** db-scheduler's smallest missedHeartbeatsLimit (SchedulerBuilder refuses less). */
  public static final int MIN_MISSED_HEARTBEATS = 4;

  /** db-scheduler's default polling interval: the time base of the compression. */
  public static final Duration DEFAULT_POLL = Duration.ofSeconds(10);

  /** The mapping of {@code lease}. */
  public static LeaseMapping of(Config.Lease lease) {
    int limit =
        (int) Math.max(MIN_MISSED_HEARTBEATS, Math.round(lease.durationMs() / lease.heartbeatMs()));
    double k = lease.pollMs() / DEFAULT_POLL.toMillis();
    return new LeaseMapping(
        micros(lease.durationMs() / limit),
        limit,
        micros(lease.pollMs()),
        micros(Math.max(1, Duration.ofMinutes(5).toMillis() * k)),
        micros(Math.max(1, Duration.ofMinutes(30).toMillis() * k)));
  }

  /** The lease this mapping keeps: heartbeatInterval × missedHeartbeatsLimit. */
  public Duration lease() {
    return heartbeatInterval.multipliedBy(missedHeartbeatsLimit);
  }

  private static Duration micros(double ms) {
    return Duration.ofNanos(Math.round(ms * 1e3) * 1_000);
  }
}
