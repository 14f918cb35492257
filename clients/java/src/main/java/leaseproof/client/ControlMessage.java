package leaseproof.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;

/**
 * One message from the controller: {@code config}, {@code go}, {@code clock}, {@code
 * report-clock} or {@code stall}; the fields a type does not use are null.
 */
@JsonIgnoreProperties(ignoreUnknown = true)
record ControlMessage(
    String type, Integer wireFormat, Config config, Config.Skew skew, Double ms) {}
