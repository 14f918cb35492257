package leaseproof.client;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import org.junit.jupiter.api.Test;

class MonotonicClockTest {
  @Test
  void isTheTimeSinceBootAsTheKernelCountsIt() {
    double distance = MonotonicClock.distanceFromUptimeMs();
    assumeFalse(Double.isNaN(distance), "no /proc/uptime here");
    // /proc/uptime has hundredths of a second, and runs ahead only by time spent suspended.
    assertTrue(Math.abs(distance) < 1_000, "System.nanoTime() is " + distance + " ms off");
    MonotonicClock.check(1_000);
  }
}
