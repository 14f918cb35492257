package leaseproof.client;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * A job payload: the handler plan leaseproof enqueued. Other fields of the payload are ignored.
 *
 * @param units the handler's steps, in order
 * @param failAttempts attempts up to this one end in a planned failure after their last unit
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Plan(List<Unit> units, int failAttempts) {

  /**
   * One step of the plan.
   *
   * @param ms how long it takes
   * @param sync true: the thread computes, deaf to interruption, to the end
   * @param effect true: a side effect (a row in leaseproof_effects) follows it
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Unit(double ms, boolean sync, boolean effect) {}
}
