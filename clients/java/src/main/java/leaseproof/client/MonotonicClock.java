package leaseproof.client;

/**
 * CLOCK_MONOTONIC in milliseconds: the time base of every event a program sends. One monotonic
 * clock serves every process on a host, and leaseproof moves these times onto its own clock.
 *
 * <p>{@code System.nanoTime()}'s origin is arbitrary by its specification, but HotSpot on Linux
 * returns {@code clock_gettime(CLOCK_MONOTONIC)} as it is (os_linux / os_posix
 * {@code javaTimeNanos}): the same origin as Python's {@code time.monotonic_ns()} and Node's
 * {@code process.hrtime}. leaseproof's test (test/env/java-install.test.ts) checks it against
 * Node's clock across processes; {@link NativeRunner} warns on stderr when it is far from the
 * kernel's time since boot, where a VM that does it otherwise would misplace every event.
 */
public final class MonotonicClock {
  private MonotonicClock() {}

  /** Now, in ms on CLOCK_MONOTONIC. */
  public static double nowMs() {
    return System.nanoTime() / 1e6;
  }

  /**
   * The distance, in ms, between {@link #nowMs()} and the kernel's time since boot read from
   * {@code /proc/uptime} (CLOCK_BOOTTIME, in hundredths of a second: it runs ahead of
   * CLOCK_MONOTONIC only by the time the machine was suspended). NaN where there is no such file.
   */
  public static double distanceFromUptimeMs() {
    try {
      String text = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/uptime"));
      double uptimeMs = Double.parseDouble(text.trim().split("\\s+")[0]) * 1e3;
      return nowMs() - uptimeMs;
    } catch (java.io.IOException | RuntimeException e) {
      return Double.NaN;
    }
  }

  /**
   * Throws when this JVM's {@code System.nanoTime()} is visibly not CLOCK_MONOTONIC: more than
   * {@code toleranceMs} behind or ahead of the time since boot. (A machine suspended for longer
   * than the tolerance would be refused too: the message says so.)
   */
  public static void check(double toleranceMs) {
    double distance = distanceFromUptimeMs();
    if (!Double.isNaN(distance) && Math.abs(distance) > toleranceMs) {
      throw new IllegalStateException(
          String.format(
              "System.nanoTime() is %.0f ms away from the time since boot (/proc/uptime): this"
                  + " JVM's monotonic clock is not CLOCK_MONOTONIC (or the machine was suspended),"
                  + " so its event times could not be placed",
              distance));
    }
  }
}
