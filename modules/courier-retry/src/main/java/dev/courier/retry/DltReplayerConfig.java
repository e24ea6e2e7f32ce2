package dev.courier.retry;

import dev.courier.core.ClientSettings;
import java.util.Map;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/**
 * Settings of a {@link DltReplayer}: the Kafka client settings every Courier component takes
 * ({@code bootstrap.servers} and {@code kafka.*}) and the replay rate.
 */
public final class DltReplayerConfig extends AbstractConfig {

  public static final String BOOTSTRAP_SERVERS = ClientSettings.BOOTSTRAP_SERVERS;
  public static final String REPLAY_RATE_PER_SECOND = "retry.replay.rate.per.second";

  private static final ConfigDef CONFIG =
      ClientSettings.define(new ConfigDef())
          .define(
              REPLAY_RATE_PER_SECOND,
              Type.DOUBLE,
              10.0,
              Range.atLeast(0.001),
              Importance.MEDIUM,
              "Most records a replay sends per second, so a replayed backlog does not swamp the"
                  + " consumer or the dependency that failed.");

  private final ClientSettings clients;

  public DltReplayerConfig(Map<String, ?> originals) {
    super(CONFIG, originals, false);
    this.clients = ClientSettings.of(this);
  }

  public static ConfigDef configDef() {
    return new ConfigDef(CONFIG);
  }

  public ClientSettings clients() {
    return clients;
  }

  public double ratePerSecond() {
    return getDouble(REPLAY_RATE_PER_SECOND);
  }
}
