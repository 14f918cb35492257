package leaseproof.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class WorkerTest {
  private final ByteArrayOutputStream out = new ByteArrayOutputStream();

  private Worker worker() throws Exception {
    return new Worker(WireFixture.config(), out);
  }

  @Test
  void runsThePlanReportingClaimUnitsAndEffectsThenFailsThePlannedAttempts() throws Exception {
    Worker w = worker();
    Plan plan =
        new Plan(
            List.of(new Plan.Unit(5, false, false), new Plan.Unit(5, true, true)), 1);
    double start = MonotonicClock.nowMs();
    assertThrows(PlannedFailure.class, () -> w.runJob("7", "w1-x#2", 1, plan));
    assertTrue(MonotonicClock.nowMs() - start >= 10);
    List<JsonNode> events = WireFixture.events(out);
    assertEquals(
        List.of("claim", "unit", "unit", "effect"),
        events.stream().map(e -> e.get("kind").asText()).toList());
    JsonNode claim = events.get(0);
    assertEquals("ok", claim.get("outcome").asText());
    assertEquals("w1-x#2", claim.get("token").asText());
    assertEquals(1, claim.get("attempt").asInt());
    // The effects database is unreachable here: the effect happened, its row could not be written.
    assertFalse(events.get(3).get("recorded").asBoolean());
    // Event times are CLOCK_MONOTONIC, in order.
    assertTrue(events.get(0).get("at").asDouble() <= events.get(3).get("at").asDouble());
    // The second attempt is past failAttempts: it succeeds.
    w.runJob("7", "w1-x#3", 2, new Plan(List.of(), 1));
  }

  @Test
  void anInterruptedHandlerIsCutAtItsSleepAndSaysAbortForTheNextUnit() throws Exception {
    Worker w = worker();
    Plan plan = new Plan(List.of(new Plan.Unit(5_000, false, false)), 0);
    AtomicReference<Throwable> thrown = new AtomicReference<>();
    Thread handler =
        new Thread(
            () -> {
              try {
                w.runJob("1", "t", 1, plan);
              } catch (Throwable e) {
                thrown.set(e);
              }
            });
    handler.start();
    Thread.sleep(100);
    handler.interrupt();
    handler.join(2_000);
    assertTrue(thrown.get() instanceof InterruptedException, String.valueOf(thrown.get()));
    JsonNode abort = WireFixture.events(out).get(2);
    assertEquals("abort", abort.get("kind").asText());
    assertEquals(1, abort.get("unit").asInt());
  }

  @Test
  void reportsItsWallClockAndTheRealTimeItShouldBe() throws Exception {
    Worker w = worker();
    w.reportClock();
    JsonNode clock = WireFixture.events(out).get(0);
    // The config's initial skew: 1.5 s (this JVM's clock is not skewed: realNow is 1.5 s back).
    assertEquals(
        1_500, clock.get("workerNow").asDouble() - clock.get("realNow").asDouble(), 5);
    assertEquals(System.currentTimeMillis(), clock.get("workerNow").asDouble(), 1_000);
  }

  @Test
  void aStallHoldsTheHandlerAtItsNextUnitsEnd() throws Exception {
    Worker w = worker();
    w.onMessage(new ControlMessage("stall", null, null, null, 150.0), () -> {});
    double start = MonotonicClock.nowMs();
    w.runJob("1", "t", 1, new Plan(List.of(new Plan.Unit(1, false, false)), 0));
    assertTrue(MonotonicClock.nowMs() - start >= 140);
    assertEquals("stall", WireFixture.events(out).get(0).get("kind").asText());
  }
}
