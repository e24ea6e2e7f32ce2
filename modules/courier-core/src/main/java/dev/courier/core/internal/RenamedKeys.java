package dev.courier.core.internal;

import dev.courier.core.RenamedKey;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Applies a configuration's {@link RenamedKey}s to its settings before they are parsed. */
public final class RenamedKeys {

  private static final Logger LOG = LoggerFactory.getLogger(RenamedKeys.class);

  private RenamedKeys() {}

  /**
   * The settings with every old name moved to its new one, each use logged as deprecated; a retired
   * name stays as it is (its configuration still declares it).
   *
   * @throws ConfigException when a setting is given under both names with different values
   */
  public static Map<String, Object> apply(Map<String, ?> settings, Collection<RenamedKey> renames) {
    Map<String, Object> out = new HashMap<>(settings);
    for (RenamedKey r : renames) {
      if (!out.containsKey(r.oldName())) {
        continue;
      }
      LOG.warn("{}", r.warning());
      if (r.newName() == null) {
        continue;
      }
      Object old = out.remove(r.oldName());
      Object current = out.get(r.newName());
      if (current != null && !Objects.equals(String.valueOf(current), String.valueOf(old))) {
        throw new ConfigException(
            r.newName(),
            current,
            "also given under its deprecated name '"
                + r.oldName()
                + "' as "
                + old
                + "; set only '"
                + r.newName()
                + "'");
      }
      out.putIfAbsent(r.newName(), old);
    }
    return out;
  }
}
