package leaseproof.client;

/** The wire format this client speaks. */
public final class WireFormat {
  /**
   * The version; the controller sends its own in the config message and a mismatch ends the
   * program before it claims anything.
   */
  public static final int VERSION = 1;

  private WireFormat() {}
}
