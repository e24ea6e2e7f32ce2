package dev.courier.schema;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaParseException;

/**
 * The contracts under {@code schemas/}: one directory per subject holding {@code v1.avsc}, {@code
 * v2.avsc}, ... and a {@code compatibility.properties} with each subject's mode (BACKWARD unless
 * listed). Versions must be numbered 1..n without gaps.
 */
public final class SchemaCatalog {

  public static final String COMPATIBILITY_FILE = "compatibility.properties";
  public static final CompatibilityLevel DEFAULT_LEVEL = CompatibilityLevel.BACKWARD;

  private static final Pattern VERSION = Pattern.compile("v(\\d+)\\.avsc");

  /** One subject's history. */
  public record Subject(String name, CompatibilityLevel level, List<Schema> versions) {
    public Subject {
      versions = List.copyOf(versions);
    }

    public Schema latest() {
      return versions.get(versions.size() - 1);
    }
  }

  private final List<Subject> subjects;

  private SchemaCatalog(List<Subject> subjects) {
    this.subjects = List.copyOf(subjects);
  }

  /** Reads every subject under the directory; a malformed file fails with its path. */
  public static SchemaCatalog load(Path directory) {
    Properties levels = readLevels(directory.resolve(COMPATIBILITY_FILE));
    List<Subject> subjects = new ArrayList<>();
    try (Stream<Path> entries = Files.list(directory)) {
      for (Path dir : entries.filter(Files::isDirectory).sorted().toList()) {
        String name = dir.getFileName().toString();
        String level = levels.getProperty(name);
        subjects.add(
            new Subject(
                name,
                level == null ? DEFAULT_LEVEL : CompatibilityLevel.parse(level),
                readVersions(dir)));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read schemas in " + directory, e);
    }
    for (String listed : levels.stringPropertyNames()) {
      if (subjects.stream().noneMatch(s -> s.name().equals(listed))) {
        throw new IllegalStateException(
            directory.resolve(COMPATIBILITY_FILE)
                + " names subject "
                + listed
                + ", which has no directory");
      }
    }
    return new SchemaCatalog(subjects);
  }

  public List<Subject> subjects() {
    return subjects;
  }

  /**
   * Checks every subject's versions in order: each must be compatible with its predecessors under
   * the subject's level.
   *
   * @return one message per violation, prefixed with subject and version; empty when all are fine
   */
  public List<String> evolutionViolations() {
    List<String> violations = new ArrayList<>();
    for (Subject subject : subjects) {
      List<Schema> versions = subject.versions();
      for (int v = 1; v < versions.size(); v++) {
        CompatibilityResult result =
            SchemaCompatibilityChecker.check(
                subject.level(), versions.get(v), versions.subList(0, v));
        for (String message : result.messages()) {
          violations.add(subject.name() + " v" + (v + 1) + " is incompatible: " + message);
        }
      }
    }
    return violations;
  }

  private static List<Schema> readVersions(Path dir) throws IOException {
    List<Path> files;
    try (Stream<Path> entries = Files.list(dir)) {
      files =
          entries
              .filter(p -> VERSION.matcher(p.getFileName().toString()).matches())
              .sorted(Comparator.comparingInt(SchemaCatalog::versionOf))
              .toList();
    }
    List<Schema> versions = new ArrayList<>();
    for (int i = 0; i < files.size(); i++) {
      Path file = files.get(i);
      if (versionOf(file) != i + 1) {
        throw new IllegalStateException(
            dir
                + ": versions must be numbered v1, v2, ... without gaps; found "
                + file.getFileName()
                + " where v"
                + (i + 1)
                + ".avsc was expected");
      }
      try {
        versions.add(new Schema.Parser().parse(Files.readString(file, StandardCharsets.UTF_8)));
      } catch (SchemaParseException e) {
        throw new IllegalStateException(file + " is not a valid Avro schema: " + e.getMessage(), e);
      }
    }
    if (versions.isEmpty()) {
      throw new IllegalStateException(dir + " holds no v1.avsc");
    }
    return versions;
  }

  private static int versionOf(Path file) {
    Matcher m = VERSION.matcher(file.getFileName().toString());
    if (!m.matches()) {
      throw new IllegalArgumentException(file.toString());
    }
    return Integer.parseInt(m.group(1));
  }

  private static Properties readLevels(Path file) {
    Properties properties = new Properties();
    if (Files.exists(file)) {
      try (Reader reader = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
        properties.load(reader);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot read " + file, e);
      }
    }
    return properties;
  }
}
