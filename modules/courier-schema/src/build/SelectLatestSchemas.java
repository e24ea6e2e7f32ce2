import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Build step (run as a single-file program before code generation): copies the newest version
 * {@code vN.avsc} of every subject directory under schemas/ into one folder, so the Avro compiler
 * generates each class once, from its current contract.
 */
public final class SelectLatestSchemas {
  private static final Pattern VERSION = Pattern.compile("v(\\d+)\\.avsc");

  public static void main(String[] args) throws IOException {
    Path schemas = Path.of(args[0]);
    Path out = Path.of(args[1]);
    Files.createDirectories(out);
    try (Stream<Path> subjects = Files.list(schemas)) {
      for (Path subject : subjects.filter(Files::isDirectory).sorted().toList()) {
        Optional<Path> latest = latest(subject);
        if (latest.isEmpty()) {
          throw new IllegalStateException(subject + " has no vN.avsc file");
        }
        Path target = out.resolve(subject.getFileName() + ".avsc");
        Files.copy(latest.get(), target, StandardCopyOption.REPLACE_EXISTING);
        System.out.println("[schemas] " + subject.getFileName() + " <- " + latest.get().getFileName());
      }
    }
  }

  private static Optional<Path> latest(Path subject) throws IOException {
    try (Stream<Path> files = Files.list(subject)) {
      return files
          .filter(p -> VERSION.matcher(p.getFileName().toString()).matches())
          .max(Comparator.comparingInt(SelectLatestSchemas::version));
    }
  }

  private static int version(Path file) {
    Matcher m = VERSION.matcher(file.getFileName().toString());
    m.matches();
    return Integer.parseInt(m.group(1));
  }
}
