package leaseproof.client;

/**
 * What {@link Worker#runJob} throws after the last unit of an attempt the plan fails
 * (failAttempts): a transient error, by design; the target lets its library see it as the
 * handler's failure.
 */
public final class PlannedFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  PlannedFailure(int attempt, int failAttempts) {
    super(
        "planned failure of attempt " + attempt + " (failAttempts " + failAttempts + ")", null);
  }
}
