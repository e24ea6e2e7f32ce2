package dev.courier.core.internal;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads and links classes named in a list, without running their static initializers: {@code
 * Class.forName} without initializing reads, defines and verifies a class, and asking for its
 * declared methods links it. Nothing starts, connects or registers, so it is safe before a service
 * does anything (a standby relay, an ahead-of-time cache's training run). A name that is not there
 * (another version of a library) is skipped.
 */
public final class ClassPreload {

  private static final Logger LOG = LoggerFactory.getLogger(ClassPreload.class);

  private ClassPreload() {}

  /** The outcome of one preload: classes loaded and linked, of those listed. */
  public record Loaded(int linked, int listed) {}

  /**
   * The class names in a resource beside {@code anchor}, one per line; blank lines and lines that
   * start with {@code #} are left out. No resource: no names.
   */
  public static List<String> names(Class<?> anchor, String resource) {
    try (InputStream in = anchor.getResourceAsStream(resource)) {
      if (in == null) {
        return List.of();
      }
      return new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))
          .lines()
          .map(String::strip)
          .filter(line -> !line.isEmpty() && !line.startsWith("#"))
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Loads and links every name it finds through {@code loader}. */
  public static Loaded load(List<String> names, ClassLoader loader) {
    int linked = 0;
    for (String name : names) {
      try {
        Class.forName(name, false, loader).getDeclaredMethods();
        linked++;
      } catch (ClassNotFoundException | LinkageError | SecurityException e) {
        LOG.debug("preload skips {}: {}", name, e.toString());
      }
    }
    return new Loaded(linked, names.size());
  }
}
