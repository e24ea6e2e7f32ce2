package dev.courier.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Checks on the files in {@code deploy/}: which Prometheus series alert rules and dashboards use,
 * and which alerts lack an owner, so a test can compare them with what a module really exports.
 */
public final class DeployChecks {

  private static final Pattern SERIES = Pattern.compile("courier_[a-z_]+");

  private DeployChecks() {}

  /** The repository's {@code deploy/} folder, seen from a module's directory. */
  public static Path deployDirectory() {
    return Path.of("../../deploy");
  }

  /**
   * Series named in {@code expr:}, {@code "expr":} and {@code "query":} lines (and their
   * continuations).
   */
  public static Set<String> seriesUsedIn(Path file) {
    Set<String> series = new TreeSet<>();
    for (String line : lines(file)) {
      if (line.contains("expr")
          || line.contains("query")
          || line.trim().startsWith("sum ")
          || line.trim().startsWith("/")) {
        Matcher m = SERIES.matcher(line);
        while (m.find()) {
          series.add(m.group());
        }
      }
    }
    return series;
  }

  /** Series names in a Prometheus text exposition (comments skipped). */
  public static Set<String> seriesIn(String scrape) {
    Set<String> names = new TreeSet<>();
    for (String line : scrape.split("\n")) {
      Matcher m = SERIES.matcher(line);
      if (!line.startsWith("#") && m.lookingAt()) {
        names.add(m.group());
      }
    }
    return names;
  }

  /** Alerts of a rules file without an {@code owner:} label. */
  public static List<String> alertsWithoutOwner(Path rules) {
    List<String> missing = new ArrayList<>();
    String current = null;
    boolean owned = false;
    for (String line : lines(rules)) {
      String t = line.trim();
      if (t.startsWith("- alert:")) {
        if (current != null && !owned) {
          missing.add(current);
        }
        current = t.substring("- alert:".length()).trim();
        owned = false;
      } else if (t.startsWith("owner:") && t.length() > "owner:".length()) {
        owned = true;
      }
    }
    if (current != null && !owned) {
      missing.add(current);
    }
    return missing;
  }

  private static List<String> lines(Path file) {
    try {
      return Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }
}
