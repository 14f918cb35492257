package leaseproof.client;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One native worker process: the wire format on stdout, the handler plan, the probes. Targets
 * read its {@link #config()} and call {@link #runJob} from their library's handler.
 */
public final class Worker {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final OutputStream out;
  private final Config config;
  private final Effects effects;
  private final Object skewLock = new Object();
  private Config.Skew skew = new Config.Skew(0, 0);
  private double skewAt = MonotonicClock.nowMs();
  /** The monotonic ms until which handlers are held (a stall message), as double bits. */
  private final AtomicLong stallUntil = new AtomicLong(Double.doubleToLongBits(0));
  /** Events sent, so that a loop failing again and again is reported once per outage. */
  private final AtomicLong emitted = new AtomicLong();

  Worker(Config config, OutputStream out) {
    this.config = config;
    this.out = out;
    this.effects = new Effects(config);
    if (config.clock() != null) setSkew(config.clock());
  }

  /** The controller's config message. */
  public Config config() {
    return config;
  }

  /** Sends one event, stamped now on the monotonic clock. Safe from any thread. */
  public void emit(String kind, Map<String, ?> fields) {
    Map<String, Object> event = new LinkedHashMap<>();
    event.put("kind", kind);
    event.put("at", MonotonicClock.nowMs());
    event.putAll(fields);
    byte[] line;
    try {
      line = JSON.writeValueAsBytes(Map.of("type", "events", "events", List.of(event)));
    } catch (JsonProcessingException e) {
      System.err.println("event not sent: " + e);
      return;
    }
    synchronized (out) {
      try {
        out.write(line);
        out.write('\n');
        out.flush();
        emitted.incrementAndGet();
      } catch (IOException e) {
        System.err.println("event not sent: " + e);
      }
    }
  }

  long emittedCount() {
    return emitted.get();
  }

  /**
   * Runs leaseproof's handler plan for one job the library handed its handler.
   *
   * <p>It reports the claim as the handler saw it (the library's own claim statement is not
   * visible here; the audit has it) with {@code token}, the holder the audit will show; each
   * unit; each effect (written to leaseproof_effects over the direct connection first); and,
   * when the thread is interrupted (the library cancelling its executions), abort. An
   * interrupted asynchronous unit is cut where it sleeps, like a cancelled coroutine; a
   * synchronous one computes to its end.
   *
   * @throws PlannedFailure after the last unit of an attempt the plan fails
   * @throws InterruptedException when the library interrupted the handler (abort was sent)
   */
  public void runJob(String jobId, String token, int attempt, Plan plan)
      throws InterruptedException {
    emit("claim", Map.of("outcome", "ok", "jobId", jobId, "token", token, "attempt", attempt));
    if (plan == null || plan.units() == null) {
      throw new IllegalArgumentException("job " + jobId + ": payload has no \"units\" array");
    }
    List<Plan.Unit> units = plan.units();
    for (int i = 0; i < units.size(); i++) {
      Plan.Unit unit = units.get(i);
      if (Thread.interrupted()) {
        emit("abort", Map.of("jobId", jobId, "token", token, "unit", i));
        throw new InterruptedException("job " + jobId + " interrupted before unit " + i);
      }
      emit("unit", Map.of("jobId", jobId, "token", token, "unit", i, "effect", unit.effect()));
      if (unit.sync()) {
        double end = MonotonicClock.nowMs() + unit.ms();
        while (MonotonicClock.nowMs() < end) {
          Thread.onSpinWait();
        }
      } else {
        try {
          sleepMs(unit.ms());
        } catch (InterruptedException e) {
          emit("abort", Map.of("jobId", jobId, "token", token, "unit", i + 1));
          throw e;
        }
      }
      waitStall();
      if (unit.effect()) {
        boolean recorded = effects.record(jobId, token, i);
        emit("effect", Map.of("jobId", jobId, "token", token, "unit", i, "recorded", recorded));
      }
    }
    if (attempt <= plan.failAttempts()) throw new PlannedFailure(attempt, plan.failAttempts());
  }

  /**
   * Holds a handler while a stall is in force: a Java program has no event loop to block, so a
   * stall holds the handlers (what leaseproof's plan runs), and the library's own threads go on,
   * as a Node worker's heartbeat thread does.
   */
  private void waitStall() throws InterruptedException {
    while (true) {
      double left = Double.longBitsToDouble(stallUntil.get()) - MonotonicClock.nowMs();
      if (left <= 0) return;
      sleepMs(left);
    }
  }

  private static void sleepMs(double ms) throws InterruptedException {
    long nanos = (long) (ms * 1e6);
    Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
  }

  /** The skew in force now (offset plus drift since it was set), in ms. */
  double skewNow() {
    synchronized (skewLock) {
      return skew.offsetMs() + skew.driftPpm() * (MonotonicClock.nowMs() - skewAt) / 1e6;
    }
  }

  void setSkew(Config.Skew next) {
    synchronized (skewLock) {
      skew = next;
      skewAt = MonotonicClock.nowMs();
    }
  }

  /**
   * Sends the wall clock this JVM reads (skewed from outside by libfaketime, which HotSpot's
   * {@code clock_gettime(CLOCK_REALTIME)} goes through) and the real time it should be.
   */
  void reportClock() {
    // Instant.now() reads CLOCK_REALTIME with microseconds, as db-scheduler's SystemClock does.
    java.time.Instant now = java.time.Instant.now();
    double workerNow = now.getEpochSecond() * 1e3 + now.getNano() / 1e6;
    emit("clock", Map.of("workerNow", workerNow, "realNow", workerNow - skewNow()));
  }

  /** Handles a control message after config. */
  void onMessage(ControlMessage message, Runnable go) {
    switch (message.type()) {
      case "go" -> go.run();
      case "clock" -> {
        if (message.skew() != null) setSkew(message.skew());
        // The controller rewrote libfaketime's offset file before sending this, and the file is
        // read at every clock read (FAKETIME_NO_CACHE): the clock has moved already.
        reportClock();
      }
      case "report-clock" -> reportClock();
      case "stall" -> {
        double ms = message.ms() == null ? 0 : message.ms();
        emit("stall", Map.of("ms", ms));
        stallUntil.set(Double.doubleToLongBits(MonotonicClock.nowMs() + ms));
      }
      default -> System.err.println("unknown control message: " + message.type());
    }
  }

  /**
   * Reports ticks that came late past the threshold: this program kept from running by the
   * machine's load (not by a fault), so timing verdicts become unknown, not false alarms.
   */
  Thread startProbe(double periodMs, double thresholdMs) {
    Thread probe =
        new Thread(
            () -> {
              double expected = MonotonicClock.nowMs() + periodMs;
              while (true) {
                try {
                  sleepMs(periodMs);
                } catch (InterruptedException e) {
                  return;
                }
                double now = MonotonicClock.nowMs();
                double late = Math.max(0, now - expected);
                expected = now + periodMs;
                if (late > thresholdMs) {
                  emit("starved", Map.of("thread", "main", "ms", (int) late, "lateMs", (int) late));
                }
              }
            },
            "leaseproof-starvation-probe");
    probe.setDaemon(true);
    probe.start();
    return probe;
  }

  void closeEffects() {
    effects.close();
  }

  static ControlMessage readControl(String line) throws IOException {
    return JSON.readValue(line.getBytes(StandardCharsets.UTF_8), ControlMessage.class);
  }
}
