package leaseproof.client;

import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Properties;

/**
 * A {@code postgres://user:password@host:port/database?…} URL, as leaseproof hands it to a
 * worker, in the form pgjdbc takes: a {@code jdbc:postgresql://} URL and its properties.
 *
 * @param jdbcUrl {@code jdbc:postgresql://host:port/database}
 * @param properties user, password, the URL's own parameters and {@code ApplicationName}
 */
public record PostgresUrl(String jdbcUrl, Properties properties) {

  /**
   * Parses {@code url}, naming every connection {@code applicationName} (pgjdbc's {@code
   * ApplicationName}, sent at startup: the audit trigger attributes writes by it). An {@code
   * application_name} in the URL is replaced by it.
   */
  public static PostgresUrl parse(String url, String applicationName) {
    URI uri = URI.create(url);
    if (!"postgres".equals(uri.getScheme()) && !"postgresql".equals(uri.getScheme())) {
      throw new IllegalArgumentException("not a postgres:// URL: " + url);
    }
    Properties properties = new Properties();
    String userInfo = uri.getRawUserInfo();
    if (userInfo != null) {
      int colon = userInfo.indexOf(':');
      properties.setProperty("user", decode(colon < 0 ? userInfo : userInfo.substring(0, colon)));
      if (colon >= 0) properties.setProperty("password", decode(userInfo.substring(colon + 1)));
    }
    String query = uri.getRawQuery();
    if (query != null) {
      for (String pair : query.split("&")) {
        if (pair.isEmpty()) continue;
        int eq = pair.indexOf('=');
        String name = decode(eq < 0 ? pair : pair.substring(0, eq));
        if (name.equals("application_name")) continue;
        properties.setProperty(name, eq < 0 ? "" : decode(pair.substring(eq + 1)));
      }
    }
    properties.setProperty("ApplicationName", applicationName);
    int port = uri.getPort() < 0 ? 5432 : uri.getPort();
    String database = uri.getRawPath() == null ? "" : uri.getRawPath().replaceFirst("^/", "");
    String jdbcUrl = "jdbc:postgresql://" + uri.getHost() + ":" + port + "/" + database;
    return new PostgresUrl(jdbcUrl, properties);
  }

  private static String decode(String text) {
    return URLDecoder.decode(text, StandardCharsets.UTF_8);
  }
}
