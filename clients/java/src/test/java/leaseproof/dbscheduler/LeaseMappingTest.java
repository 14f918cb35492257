package leaseproof.dbscheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import leaseproof.client.Config;
import org.junit.jupiter.api.Test;

class LeaseMappingTest {
  private static Config config(Map<String, Double> settings) {
    // The scenario's heartbeat and poll (250 ms, 50 ms) are not db-scheduler's: the settings are.
    return new Config(
        "w1", "postgres://x", "postgres://y", new Config.Lease(1_000, 250, 1_000, 50), null, null,
        null, settings);
  }

  /** What the controller sends for the curated lease of 1 s at db-scheduler's defaults. */
  private static Map<String, Double> defaultsAtOneSecond() {
    Map<String, Double> s = new HashMap<>();
    s.put("heartbeatInterval", 1_000.0 / 6);
    s.put("missedHeartbeatsLimit", 6.0);
    s.put("deadExecutionDetectionInterval", 2_000.0 / 6);
    s.put("pollingInterval", 50.0); // 10 s / 1800, held at its floor
    s.put("threads", 1.0);
    s.put("shutdownMaxWait", 1_000.0);
    s.put("OnFailureRetryLater", 300_000.0 / 1_800);
    return s;
  }

  @Test
  void configuresDbSchedulerWithTheSettingsTheConfigStates() {
    LeaseMapping mapping = LeaseMapping.of(config(defaultsAtOneSecond()));
    assertEquals(6, mapping.missedHeartbeatsLimit());
    assertEquals(Duration.ofNanos(166_667_000), mapping.heartbeatInterval());
    assertEquals(Duration.ofMillis(50), mapping.pollingInterval());
    assertEquals(1, mapping.threads());
    assertEquals(Duration.ofSeconds(1), mapping.shutdownMaxWait());
    assertEquals(Duration.ofNanos(166_667_000), mapping.retryDelay());
    assertEquals(1_000, mapping.lease().toNanos() / 1e6, 0.01);
  }

  @Test
  void refusesAConfigWithoutTheSettings() {
    IllegalArgumentException none =
        assertThrows(IllegalArgumentException.class, () -> LeaseMapping.of(config(null)));
    assertTrue(none.getMessage().contains("no db-scheduler settings"));
    Map<String, Double> partial = defaultsAtOneSecond();
    partial.remove("pollingInterval");
    IllegalArgumentException missing =
        assertThrows(IllegalArgumentException.class, () -> LeaseMapping.of(config(partial)));
    assertTrue(missing.getMessage().contains("pollingInterval"));
  }
}
