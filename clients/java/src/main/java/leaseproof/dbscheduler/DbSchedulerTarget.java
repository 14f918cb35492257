package leaseproof.dbscheduler;

import com.github.kagkarlsson.scheduler.Scheduler;
import com.github.kagkarlsson.scheduler.SchedulerName;
import com.github.kagkarlsson.scheduler.serializer.JacksonSerializer;
import com.zaxxer.hikari.HikariDataSource;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import leaseproof.client.Target;
import leaseproof.client.Worker;

/** db-scheduler's Scheduler as leaseproof's native target. */
final class DbSchedulerTarget implements Target {
  private HikariDataSource pool;
  private Scheduler scheduler;
  private volatile CountDownLatch stopped = new CountDownLatch(1);

  @Override
  public void prepare(Worker worker) {
    close();
    LeaseMapping mapping = LeaseMapping.of(worker.config());
    pool = WorkerDataSource.open(worker.config());
    // A new name per start, as a restarted process would have: picked_by tells the claims of
    // two incarnations apart.
    String name =
        String.format("%s-%08x", worker.config().workerId(), ThreadLocalRandom.current().nextInt());
    scheduler =
        Scheduler.create(pool, new PlanTask(worker, mapping.retryDelay()))
            .schedulerName(new SchedulerName.Fixed(name))
            .serializer(new JacksonSerializer())
            .threads(mapping.threads())
            .pollingInterval(mapping.pollingInterval())
            .heartbeatInterval(mapping.heartbeatInterval())
            .missedHeartbeatsLimit(mapping.missedHeartbeatsLimit())
            .shutdownMaxWait(mapping.shutdownMaxWait())
            .build();
    stopped = new CountDownLatch(1);
  }

  @Override
  public void run(Worker worker) throws InterruptedException {
    // db-scheduler's loops catch and log their own errors (a lost connection included) and go
    // on: the scheduler runs until stopped.
    scheduler.start();
    stopped.await();
  }

  @Override
  public void stop(Worker worker) {
    try {
      if (scheduler != null) {
        // db-scheduler's graceful stop: poll nothing more, let the execution in hand finish
        // (up to shutdownMaxWait), stop heartbeating.
        scheduler.stop();
      }
    } finally {
      close();
      stopped.countDown();
    }
  }

  private void close() {
    if (pool != null) {
      pool.close();
      pool = null;
    }
  }
}
