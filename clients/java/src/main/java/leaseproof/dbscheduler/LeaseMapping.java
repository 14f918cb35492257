package leaseproof.dbscheduler;

import java.time.Duration;
import java.util.Map;
import leaseproof.client.Config;

/**
 * db-scheduler's own settings for the run, as the controller settled them
 * (src/libraries/db-scheduler/settings.ts) and sent them in the config's {@code settings}: the
 * library's defaults or the user's values, every duration compressed by the run's one time
 * factor (k = the scenario's lease ÷ heartbeatInterval × missedHeartbeatsLimit). Nothing is
 * computed here: db-scheduler is configured with exactly what the report lists.
 *
 * @param heartbeatInterval SchedulerBuilder.heartbeatInterval
 * @param missedHeartbeatsLimit SchedulerBuilder.missedHeartbeatsLimit
 * @param pollingInterval SchedulerBuilder.pollingInterval
 * @param threads SchedulerBuilder.threads
 * @param shutdownMaxWait SchedulerBuilder.shutdownMaxWait
 * @param retryDelay the one-time task's OnFailureRetryLater delay
 */
public record LeaseMapping(
    Duration heartbeatInterval,
    int missedHeartbeatsLimit,
    Duration pollingInterval,
    int threads,
    Duration shutdownMaxWait,
    Duration retryDelay) {

  /** The mapping the config's settings state; throws if one is missing. */
  public static LeaseMapping of(Config config) {
    Map<String, Double> settings = config.settings();
    if (settings == null) {
      throw new IllegalArgumentException(
          "the config carries no db-scheduler settings: the controller settles them "
              + "(src/libraries/db-scheduler/settings.ts) and sends them as `settings`");
    }
    return new LeaseMapping(
        micros(value(settings, "heartbeatInterval")),
        count(settings, "missedHeartbeatsLimit"),
        micros(value(settings, "pollingInterval")),
        count(settings, "threads"),
        micros(value(settings, "shutdownMaxWait")),
        micros(value(settings, "OnFailureRetryLater")));
  }

  /** The lease this mapping keeps: heartbeatInterval × missedHeartbeatsLimit. */
  public Duration lease() {
    return heartbeatInterval.multipliedBy(missedHeartbeatsLimit);
  }

  private static double value(Map<String, Double> settings, String name) {
    Double value = settings.get(name);
    if (value == null || !(value > 0) || value.isInfinite()) {
      throw new IllegalArgumentException(
          "the config's db-scheduler setting " + name + " is " + value + "; expected a positive number");
    }
    return value;
  }

  private static int count(Map<String, Double> settings, String name) {
    double value = value(settings, name);
    if (value != Math.rint(value)) {
      throw new IllegalArgumentException(
          "the config's db-scheduler setting " + name + " is " + value + "; expected a whole number");
    }
    return (int) value;
  }

  private static Duration micros(double ms) {
    return Duration.ofNanos(Math.round(ms * 1e3) * 1_000);
  }
}
