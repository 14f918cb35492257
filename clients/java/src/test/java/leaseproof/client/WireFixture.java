package leaseproof.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** What a program wrote on stdout, read back as the controller reads it. */
final class WireFixture {
  private static final ObjectMapper JSON = new ObjectMapper();

  static final String CONFIG =
      "{\"type\":\"config\",\"wireFormat\":1,\"config\":{\"workerId\":\"w1\","
          + "\"databaseUrl\":\"postgres://u:p@127.0.0.1:1/db\","
          + "\"effectsUrl\":\"postgres://u:p@127.0.0.1:1/db\","
          + "\"lease\":{\"durationMs\":800,\"heartbeatMs\":200,\"extendByMs\":800,\"pollMs\":50},"
          + "\"clock\":{\"offsetMs\":1500,\"driftPpm\":0},\"extra\":true}}";

  private WireFixture() {}

  /** Every event, in order; each line must be one events message. */
  static List<JsonNode> events(ByteArrayOutputStream out) throws IOException {
    List<JsonNode> events = new ArrayList<>();
    for (String line : out.toString(StandardCharsets.UTF_8).split("\n")) {
      if (line.isEmpty()) continue;
      JsonNode message = JSON.readTree(line);
      if (!"events".equals(message.path("type").asText())) {
        throw new AssertionError("not an events message: " + line);
      }
      message.get("events").forEach(events::add);
    }
    return events;
  }

  static Config config() throws IOException {
    return Worker.readControl(CONFIG).config();
  }
}
