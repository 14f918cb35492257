package leaseproof.dbscheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import leaseproof.client.Config;
import org.junit.jupiter.api.Test;

class LeaseMappingTest {
  @Test
  void keepsTheLeaseAsHeartbeatIntervalTimesMissedHeartbeats() {
    LeaseMapping mapping = LeaseMapping.of(new Config.Lease(800, 200, 800, 50));
    assertEquals(4, mapping.missedHeartbeatsLimit());
    assertEquals(Duration.ofMillis(200), mapping.heartbeatInterval());
    assertEquals(Duration.ofMillis(800), mapping.lease());
    assertEquals(Duration.ofMillis(50), mapping.pollingInterval());
    // k = 50 ms / 10 s: 5 min → 1.5 s, 30 min → 9 s (the TS lease terms say the same).
    assertEquals(Duration.ofMillis(1_500), mapping.retryDelay());
    assertEquals(Duration.ofSeconds(9), mapping.shutdownMaxWait());
  }

  @Test
  void neverGoesUnderDbSchedulersLimitOfFour() {
    LeaseMapping mapping = LeaseMapping.of(new Config.Lease(1_000, 500, 1_000, 50));
    assertEquals(4, mapping.missedHeartbeatsLimit());
    assertEquals(Duration.ofMillis(250), mapping.heartbeatInterval());
    assertEquals(Duration.ofMillis(1_000), mapping.lease());
  }

  @Test
  void aHeartbeatThatDoesNotDivideTheLeaseKeepsTheLease() {
    LeaseMapping mapping = LeaseMapping.of(new Config.Lease(1_000, 150, 1_000, 50));
    assertEquals(7, mapping.missedHeartbeatsLimit());
    assertEquals(1_000, mapping.lease().toNanos() / 1e6, 0.01);
  }
}
