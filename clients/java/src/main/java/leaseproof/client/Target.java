package leaseproof.client;

/** A queue library's own worker loop, as {@link NativeRunner} drives it. */
public interface Target {
  /**
   * Connects the library to {@code worker.config().databaseUrl()} (the worker's own Toxiproxy
   * proxy) with application_name = the worker id on every connection; ready is sent after it.
   */
  void prepare(Worker worker) throws Exception;

  /**
   * Runs the library's loop after go until {@link #stop} has taken effect; its handler calls
   * {@link Worker#runJob}. An exception means the loop died (reported, then supervised).
   */
  void run(Worker worker) throws Exception;

  /** Begins the library's graceful shutdown (on SIGTERM): finish the job in hand. */
  void stop(Worker worker);
}
