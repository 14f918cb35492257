package leaseproof.client;

import java.io.BufferedOutputStream;
import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Runs a native worker program to its end: config, ready, go, the library's loop, exit on
 * SIGTERM or when the controller's stdin closes. A loop that throws is reported as a claim with
 * outcome info and started afresh after prepare, as a process supervisor would, unless
 * LEASEPROOF_NATIVE_SUPERVISE=0.
 */
public final class NativeRunner {
  /** How long a SIGTERM waits for the library's graceful stop before the JVM halts anyway. */
  private static final long STOP_BOUND_SECONDS = 120;

  /** How far System.nanoTime() may be from /proc/uptime (hundredths of a second) unremarked. */
  private static final double CLOCK_TOLERANCE_MS = 1_000;

  private final Target target;
  private final BufferedReader in;
  private final OutputStream out;
  private final Runnable onControllerGone;
  private final boolean supervise;
  private final CountDownLatch go = new CountDownLatch(1);
  private final CountDownLatch finished = new CountDownLatch(1);
  private volatile boolean stopping;
  private volatile String exitReason = "stopped";
  private volatile Worker worker;

  /**
   * A runner over {@code in} and {@code out} (the program's stdin and stdout); {@code
   * onControllerGone} runs when {@code in} ends after config (the program's: halt at once).
   */
  NativeRunner(
      Target target,
      InputStream in,
      OutputStream out,
      Runnable onControllerGone,
      boolean supervise) {
    this.target = target;
    this.in = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
    this.out = out;
    this.onControllerGone = onControllerGone;
    this.supervise = supervise;
  }

  /**
   * The program's main: runs {@code target} as a native worker over stdin and stdout and exits
   * the JVM. stdout is the wire format's alone: anything else printing to {@code System.out}
   * goes to stderr.
   */
  public static void runNative(Target target) {
    OutputStream wire = new BufferedOutputStream(new FileOutputStream(FileDescriptor.out));
    System.setOut(System.err);
    // The controller going away ends a worker at once, as Go's os.Exit does: no graceful stop.
    NativeRunner runner =
        new NativeRunner(
            target,
            System.in,
            wire,
            () -> Runtime.getRuntime().halt(0),
            !"0".equals(System.getenv("LEASEPROOF_NATIVE_SUPERVISE")));
    // SIGTERM starts the JVM's shutdown, which runs this hook while the other threads go on:
    // the hook starts the library's graceful stop and holds the JVM until the runner sent exit.
    Thread hook = new Thread(runner::onTerminate, "leaseproof-sigterm");
    Runtime.getRuntime().addShutdownHook(hook);
    int code = runner.run();
    if (runner.terminating) {
      runner.finished.countDown();
      return;
    }
    Runtime.getRuntime().removeShutdownHook(hook);
    System.exit(code);
  }

  private volatile boolean terminating;

  private void onTerminate() {
    terminating = true;
    stop("SIGTERM");
    try {
      finished.await(STOP_BOUND_SECONDS, TimeUnit.SECONDS);
    } catch (InterruptedException ignored) {
      // The JVM is going down anyway.
    }
  }

  /** Runs to the program's end and returns its exit code. */
  int run() {
    try {
      return runUnfinished();
    } finally {
      finished.countDown();
    }
  }

  private int runUnfinished() {
    ControlMessage first;
    try {
      String line = in.readLine();
      first = line == null ? null : Worker.readControl(line);
    } catch (IOException e) {
      System.err.println("expected a config message first: " + e);
      return 2;
    }
    if (first == null || !"config".equals(first.type()) || first.config() == null) {
      System.err.println("expected a config message first");
      return 2;
    }
    if (first.wireFormat() == null || first.wireFormat() != WireFormat.VERSION) {
      System.err.println("wire format " + first.wireFormat() + " is not " + WireFormat.VERSION);
      return 2;
    }
    double distance = MonotonicClock.distanceFromUptimeMs();
    if (Math.abs(distance) > CLOCK_TOLERANCE_MS) {
      // Not refused: a machine that was suspended shows the same distance, and its
      // CLOCK_MONOTONIC is still right. Said, for whoever reads a run's misplaced events.
      System.err.printf(
          "warning: System.nanoTime() is %.0f ms from the time since boot: if this JVM's"
              + " monotonic clock is not CLOCK_MONOTONIC, its event times are misplaced%n",
          distance);
    }
    Worker w = new Worker(first.config(), out);
    worker = w;
    try {
      target.prepare(w);
    } catch (Exception e) {
      System.err.println("could not prepare the library: " + e);
      e.printStackTrace();
      return 1;
    }
    // The library's loop sets itself up after go: at work from its first claim.
    w.emit(
        "ready",
        Map.of(
            "pid",
            ProcessHandle.current().pid(),
            "wireFormat",
            WireFormat.VERSION,
            "startsOnGo",
            true));
    Thread reader = new Thread(() -> readControl(w), "leaseproof-control");
    reader.setDaemon(true);
    reader.start();
    try {
      go.await();
    } catch (InterruptedException e) {
      return 1;
    }
    Config.Starvation starvation =
        w.config().starvation() != null ? w.config().starvation() : new Config.Starvation(20, 10);
    Thread probe = w.startProbe(starvation.periodMs(), starvation.thresholdMs());
    long pauseMs = (long) Math.max(50, w.config().lease().pollMs());
    long reportedAt = -1;
    while (!stopping) {
      try {
        target.run(w);
        break;
      } catch (Exception e) {
        if (stopping) {
          System.err.println("the library's loop ended while stopping: " + e);
          break;
        }
        if (!supervise) {
          System.err.println("the library's loop ended: " + e);
          return 1;
        }
        // Reported as leaseproof's own worker reports a fetch on a broken connection — a claim
        // whose outcome is unknown — so the history counts the worker as cut off until it works
        // again, not as a free worker while it restarts. Once per outage: a loop that fails
        // again before doing anything else is still cut off.
        if (w.emittedCount() != reportedAt) {
          w.emit(
              "claim", Map.of("outcome", "info", "error", "the library's loop ended: " + e));
          reportedAt = w.emittedCount();
        } else {
          System.err.println("the library's loop ended again: " + e);
        }
        while (!stopping) {
          try {
            Thread.sleep(pauseMs);
            target.prepare(w);
            break;
          } catch (Exception again) {
            System.err.println("restarting the library's loop: " + again);
          }
        }
      }
    }
    probe.interrupt();
    w.closeEffects();
    w.emit("exit", Map.of("reason", exitReason));
    return 0;
  }

  /** Reads control messages, one JSON object per line, until stdin closes. */
  private void readControl(Worker w) {
    try {
      String line;
      while ((line = in.readLine()) != null) {
        if (line.isBlank()) continue;
        ControlMessage message;
        try {
          message = Worker.readControl(line);
        } catch (IOException e) {
          System.err.println(
              "not a control message: " + line.substring(0, Math.min(120, line.length())));
          continue;
        }
        w.onMessage(message, go::countDown);
      }
    } catch (IOException e) {
      System.err.println("stdin failed: " + e);
    }
    // The controller went away: a worker never outlives it.
    onControllerGone.run();
  }

  /** Stops once: claim nothing more, let the library finish the job in hand, then exit. */
  synchronized void stop(String reason) {
    if (stopping) return;
    exitReason = reason;
    stopping = true;
    go.countDown();
    Worker w = worker;
    if (w != null) {
      Thread stopper = new Thread(() -> target.stop(w), "leaseproof-stop");
      stopper.setDaemon(true);
      stopper.start();
    }
  }
}
