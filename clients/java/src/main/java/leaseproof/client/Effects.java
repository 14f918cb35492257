package leaseproof.client;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The effects table over the direct connection (not the worker's proxy: an effect is recorded
 * whatever the faults do to the queue's connection), opened on first use and again after a
 * failure.
 */
final class Effects implements AutoCloseable {
  private final Config config;
  private Connection connection;

  Effects(Config config) {
    this.config = config;
  }

  /** Writes one effect row; false (and why, on stderr) when it could not be written. */
  synchronized boolean record(String jobId, String token, int unit) {
    try {
      if (connection == null || connection.isClosed()) {
        PostgresUrl url = PostgresUrl.parse(config.effectsUrl(), config.workerId());
        url.properties().setProperty("connectTimeout", "10");
        url.properties().setProperty("socketTimeout", "10");
        connection = DriverManager.getConnection(url.jdbcUrl(), url.properties());
      }
      try (PreparedStatement insert =
          connection.prepareStatement(
              "INSERT INTO leaseproof_effects (job_id, worker_id, token, unit) VALUES (?, ?, ?, ?)")) {
        insert.setString(1, jobId);
        insert.setString(2, config.workerId());
        insert.setString(3, token);
        insert.setInt(4, unit);
        insert.executeUpdate();
      }
      return true;
    } catch (SQLException | RuntimeException e) {
      System.err.println("effect not recorded: " + e);
      close();
      return false;
    }
  }

  @Override
  public synchronized void close() {
    if (connection != null) {
      try {
        connection.close();
      } catch (SQLException ignored) {
        // Closing a broken connection: nothing more to do with it.
      }
      connection = null;
    }
  }
}
