package leaseproof.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class NativeRunnerTest {
  /** A library loop that runs one job of one unit, then waits to be stopped. */
  static final class OneJob implements Target {
    final AtomicInteger prepared = new AtomicInteger();
    final CountDownLatch stopped = new CountDownLatch(1);
    int failures;

    @Override
    public void prepare(Worker worker) {
      prepared.incrementAndGet();
    }

    @Override
    public void run(Worker worker) throws Exception {
      if (failures-- > 0) throw new IllegalStateException("connection lost");
      worker.runJob("1", "w1#2", 1, new Plan(List.of(new Plan.Unit(1, false, false)), 0));
      stopped.await();
    }

    @Override
    public void stop(Worker worker) {
      stopped.countDown();
    }
  }

  private static List<String> kinds(List<JsonNode> events) {
    return events.stream().map(e -> e.get("kind").asText()).toList();
  }

  @Test
  void saysReadyWaitsForGoRunsTheLoopAndSaysExitWhenStopped() throws Exception {
    PipedOutputStream controller = new PipedOutputStream();
    PipedInputStream in = new PipedInputStream(controller);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    OneJob target = new OneJob();
    CountDownLatch gone = new CountDownLatch(1);
    NativeRunner runner = new NativeRunner(target, in, out, gone::countDown, true);
    AtomicInteger code = new AtomicInteger(-1);
    Thread main = new Thread(() -> code.set(runner.run()));
    main.start();
    controller.write((WireFixture.CONFIG + "\n").getBytes(StandardCharsets.UTF_8));
    controller.flush();
    Thread.sleep(200);
    // Ready, and nothing else before go.
    List<JsonNode> before = WireFixture.events(out);
    assertEquals(List.of("ready"), kinds(before));
    assertEquals(ProcessHandle.current().pid(), before.get(0).get("pid").asLong());
    assertEquals(1, before.get(0).get("wireFormat").asInt());
    assertTrue(before.get(0).get("startsOnGo").asBoolean());
    controller.write("{\"type\":\"go\"}\n{\"type\":\"report-clock\"}\n".getBytes(StandardCharsets.UTF_8));
    controller.flush();
    Thread.sleep(300);
    runner.stop("SIGTERM");
    main.join(5_000);
    assertEquals(0, code.get());
    List<String> kinds = kinds(WireFixture.events(out));
    assertTrue(kinds.containsAll(List.of("ready", "claim", "unit", "clock", "exit")), kinds.toString());
    assertEquals("exit", kinds.get(kinds.size() - 1));
    JsonNode exit = WireFixture.events(out).get(kinds.size() - 1);
    assertEquals("SIGTERM", exit.get("reason").asText());
    // The controller closing stdin ends the program.
    controller.close();
    assertTrue(gone.await(2, TimeUnit.SECONDS));
  }

  @Test
  void superviseALoopThatDiesReportingItOnceAsAClaimOfUnknownOutcome() throws Exception {
    OneJob target = new OneJob();
    target.failures = 2;
    PipedOutputStream controller = new PipedOutputStream();
    PipedInputStream in = new PipedInputStream(controller);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    NativeRunner runner = new NativeRunner(target, in, out, () -> {}, true);
    Thread main = new Thread(runner::run);
    main.start();
    controller.write((WireFixture.CONFIG + "\n{\"type\":\"go\"}\n").getBytes(StandardCharsets.UTF_8));
    controller.flush();
    Thread.sleep(600);
    runner.stop("SIGTERM");
    main.join(5_000);
    List<JsonNode> events = WireFixture.events(out);
    List<JsonNode> info =
        events.stream()
            .filter(e -> e.get("kind").asText().equals("claim"))
            .filter(e -> e.get("outcome").asText().equals("info"))
            .toList();
    // Two failures in a row, one outage: reported once; prepared afresh after each.
    assertEquals(1, info.size());
    assertTrue(info.get(0).get("error").asText().contains("connection lost"));
    assertEquals(3, target.prepared.get());
  }

  @Test
  void refusesAnotherWireFormatBeforeSayingAnything() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    String config = WireFixture.CONFIG.replace("\"wireFormat\":1", "\"wireFormat\":2") + "\n";
    NativeRunner runner =
        new NativeRunner(
            new OneJob(),
            new ByteArrayInputStream(config.getBytes(StandardCharsets.UTF_8)),
            out,
            () -> {},
            true);
    assertEquals(2, runner.run());
    assertEquals(0, out.size());
  }
}
