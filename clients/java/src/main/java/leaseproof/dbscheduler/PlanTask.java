package leaseproof.dbscheduler;

import com.github.kagkarlsson.scheduler.task.DeadExecutionHandler;
import com.github.kagkarlsson.scheduler.task.Execution;
import com.github.kagkarlsson.scheduler.task.ExecutionContext;
import com.github.kagkarlsson.scheduler.task.FailureHandler;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import com.github.kagkarlsson.scheduler.task.helper.OneTimeTask;
import java.time.Duration;
import leaseproof.client.Plan;
import leaseproof.client.Worker;

/**
 * The one task leaseproof enqueues: a db-scheduler one-time task whose data is leaseproof's
 * handler plan (JSON, through db-scheduler's own JacksonSerializer) and whose handler runs it.
 * Its failure and dead-execution handlers are db-scheduler's defaults for a one-time task —
 * retry later (no attempt limit), revive a dead execution — the retry's delay the run's
 * OnFailureRetryLater setting.
 */
final class PlanTask extends OneTimeTask<Plan> {
  /** The task_name of every job leaseproof enqueues. */
  static final String NAME = "leaseproof";

  private final Worker worker;

  PlanTask(Worker worker, Duration retryDelay) {
    super(
        NAME,
        Plan.class,
        new FailureHandler.OnFailureRetryLater<>(retryDelay),
        new DeadExecutionHandler.ReviveDeadExecution<>());
    this.worker = worker;
  }

  /**
   * The holder the audit shows for a picked execution: the scheduler that picked it and the
   * version its pick wrote ({@code picked_by#version}); every pick and every reschedule bumps
   * the version, and db-scheduler's heartbeat and completion are fenced by it.
   */
  static String token(Execution execution) {
    return execution.pickedBy + "#" + execution.version;
  }

  @Override
  public void executeOnce(TaskInstance<Plan> instance, ExecutionContext context) {
    Execution execution = context.getExecution();
    // db-scheduler counts the attempts that failed or died before this one (a dead execution
    // revived counts as a failure too): this is attempt consecutive_failures + 1.
    int attempt = execution.consecutiveFailures + 1;
    try {
      worker.runJob(instance.getId(), token(execution), attempt, instance.getData());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }
}
