package leaseproof.dbscheduler;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import leaseproof.client.NativeRunner;

/**
 * The program leaseproof starts for a db-scheduler worker ({@code java -jar
 * leaseproof-java.jar}). {@code --print-sql} prints db-scheduler's PostgreSQL table as JSON
 * ({@code version}, {@code install}, {@code source}, {@code taskName}) for the controller.
 */
public final class DbSchedulerNative {
  /** Where the DDL is kept in the jar (see its header for where it came from). */
  static final String TABLES_RESOURCE = "/leaseproof/dbscheduler/postgresql_tables.sql";

  private DbSchedulerNative() {}

  /** The program's entry point. */
  public static void main(String[] args) throws IOException {
    if (args.length == 1 && args[0].equals("--print-sql")) {
      System.out.println(new ObjectMapper().writeValueAsString(printSql()));
      return;
    }
    NativeRunner.runNative(new DbSchedulerTarget());
  }

  static Map<String, String> printSql() throws IOException {
    Map<String, String> sql = new LinkedHashMap<>();
    sql.put("version", dbSchedulerVersion());
    sql.put("install", tables());
    sql.put(
        "source",
        "db-scheduler's repository at v16.12.0, db-scheduler/src/test/resources/postgresql_tables.sql"
            + " (the jar ships no DDL)");
    sql.put("taskName", PlanTask.NAME);
    return sql;
  }

  static String tables() throws IOException {
    try (InputStream in = DbSchedulerNative.class.getResourceAsStream(TABLES_RESOURCE)) {
      if (in == null) throw new IOException(TABLES_RESOURCE + " is not in the jar");
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }

  /** The db-scheduler this program was built with, from its jar's Maven metadata. */
  static String dbSchedulerVersion() throws IOException {
    String pom = "/META-INF/maven/com.github.kagkarlsson/db-scheduler/pom.properties";
    try (InputStream in = DbSchedulerNative.class.getResourceAsStream(pom)) {
      if (in == null) return "unknown";
      java.util.Properties properties = new java.util.Properties();
      properties.load(in);
      return properties.getProperty("version", "unknown");
    }
  }
}
