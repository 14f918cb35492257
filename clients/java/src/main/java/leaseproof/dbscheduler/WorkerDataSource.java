package leaseproof.dbscheduler;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import leaseproof.client.Config;
import leaseproof.client.PostgresUrl;

/**
 * The pool db-scheduler runs on: HikariCP (what a db-scheduler application usually hands it)
 * over the worker's own proxied URL, every connection named by the worker id. Three
 * connections: the polling thread, the one executor thread's completion, the housekeeper's
 * heartbeats and dead-execution detection. pgjdbc's timeouts are the run's statement bound
 * (whole seconds, pgjdbc's unit), so that a blackholed connection fails rather than hangs.
 */
final class WorkerDataSource {
  private WorkerDataSource() {}

  static HikariDataSource open(Config config) {
    PostgresUrl url = PostgresUrl.parse(config.databaseUrl(), config.workerId());
    long boundMs = (long) Math.ceil(config.statementBoundMs());
    String seconds = Long.toString(Math.max(1, (boundMs + 999) / 1000));
    url.properties().setProperty("socketTimeout", seconds);
    url.properties().setProperty("connectTimeout", seconds);
    HikariConfig hikari = new HikariConfig();
    hikari.setPoolName(config.workerId());
    hikari.setJdbcUrl(url.jdbcUrl());
    hikari.setDataSourceProperties(url.properties());
    hikari.setMaximumPoolSize(3);
    hikari.setMinimumIdle(1);
    // Hikari's floor is 250 ms; its validation must be shorter than the wait for a connection.
    hikari.setConnectionTimeout(Math.max(500, boundMs));
    hikari.setValidationTimeout(250);
    return new HikariDataSource(hikari);
  }
}
