package leaseproof.dbscheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.github.kagkarlsson.scheduler.serializer.JacksonSerializer;
import com.github.kagkarlsson.scheduler.task.Execution;
import com.github.kagkarlsson.scheduler.task.TaskInstance;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;
import leaseproof.client.Plan;
import org.junit.jupiter.api.Test;

class DbSchedulerNativeTest {
  @Test
  void printsDbSchedulersOwnTableAndTheVersionItWasBuiltWith() throws Exception {
    Map<String, String> sql = DbSchedulerNative.printSql();
    assertEquals("16.12.0", sql.get("version"));
    assertEquals("leaseproof", sql.get("taskName"));
    assertTrue(sql.get("install").contains("create table scheduled_tasks"));
    assertTrue(sql.get("install").contains("version BIGINT not null"));
  }

  @Test
  void readsTheTaskDataLeaseproofEnqueuesThroughDbSchedulersJacksonSerializer() {
    // What the controller's insert writes: the payload as JSON, fields the plan does not know.
    byte[] data =
        "{\"units\":[{\"ms\":40,\"effect\":true}],\"failAttempts\":1,\"seq\":3}"
            .getBytes(StandardCharsets.UTF_8);
    Plan plan = new JacksonSerializer().deserialize(Plan.class, data);
    assertEquals(1, plan.units().size());
    assertEquals(40, plan.units().get(0).ms());
    assertTrue(plan.units().get(0).effect());
    assertEquals(1, plan.failAttempts());
  }

  @Test
  void theTokenIsThePickerAndTheVersionItsPickWrote() {
    Execution picked =
        new Execution(
            Instant.now(),
            new TaskInstance<Plan>(PlanTask.NAME, "12"),
            true,
            "w2-0000abcd",
            Instant.now(),
            null,
            0,
            Instant.now(),
            5);
    assertEquals("w2-0000abcd#5", PlanTask.token(picked));
  }
}
