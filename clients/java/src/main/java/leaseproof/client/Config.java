package leaseproof.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.Map;

/**
 * The config message's body: who this worker is, where its database is, its lease.
 *
 * @param workerId also the application_name of every database connection the program opens
 * @param databaseUrl the queue's database through this worker's own proxy (faults act on it)
 * @param effectsUrl the same database directly, for effect records
 * @param lease the run's lease
 * @param clock the initial skew, if any
 * @param statementTimeoutMs the client-side bound on one statement, if set
 * @param starvation the starvation probe's settings, if set
 * @param settings the library's own settings by its own names, as the run settled them (ms for
 *     a duration, after the run's time factor); null for a queue that declares none
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Config(
    String workerId,
    String databaseUrl,
    String effectsUrl,
    Lease lease,
    Skew clock,
    Double statementTimeoutMs,
    Starvation starvation,
    Map<String, Double> settings) {

  /** The run's lease, in ms. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Lease(double durationMs, double heartbeatMs, double extendByMs, double pollMs) {}

  /** A clock skew: offset from real time, plus drift in parts per million. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Skew(double offsetMs, double driftPpm) {}

  /** The starvation probe: its tick and how late a tick may come before it is reported. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Starvation(double periodMs, double thresholdMs) {}

  /** The bound on one statement: as configured, else the lease's duration (as the Node worker). */
  public double statementBoundMs() {
    return statementTimeoutMs != null ? statementTimeoutMs : lease.durationMs();
  }
}
