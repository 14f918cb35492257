package leaseproof.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class PostgresUrlTest {
  @Test
  void turnsAPostgresUrlIntoPgjdbcsFormNamingEveryConnectionByTheWorker() {
    PostgresUrl url =
        PostgresUrl.parse(
            "postgres://leaseproof:p%40ss%3Aword@127.0.0.1:54321/run_7?sslmode=disable&application_name=other",
            "w2");
    assertEquals("jdbc:postgresql://127.0.0.1:54321/run_7", url.jdbcUrl());
    assertEquals("leaseproof", url.properties().getProperty("user"));
    assertEquals("p@ss:word", url.properties().getProperty("password"));
    assertEquals("disable", url.properties().getProperty("sslmode"));
    // The worker's name wins: the audit trigger attributes writes by it.
    assertEquals("w2", url.properties().getProperty("ApplicationName"));
    assertFalse(url.properties().containsKey("application_name"));
  }

  @Test
  void takesPostgresqlAndTheDefaultPortAndRefusesOtherSchemes() {
    assertEquals(
        "jdbc:postgresql://db:5432/q",
        PostgresUrl.parse("postgresql://u@db/q", "w1").jdbcUrl());
    assertThrows(IllegalArgumentException.class, () -> PostgresUrl.parse("mysql://u@db/q", "w1"));
  }
}
