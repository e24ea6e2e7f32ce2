import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The slowest test classes and methods of a leg, with their share of its test time, read from the
 * Surefire and Failsafe reports under modules/ and examples/ written since a given time:
 * {@code java .ci/Slowest.java <epoch-seconds> [top]}. The JDK alone runs it (no build, no
 * dependencies), so CI prints it even when a leg fails.
 */
public class Slowest {

  private static final Pattern CASE =
      Pattern.compile("<testcase name=\"([^\"]*)\" classname=\"([^\"]*)\" time=\"([0-9.]+)\"");
  private static final Pattern SUITE_TIME =
      Pattern.compile("<testsuite [^>]*?name=\"([^\"]*)\"[^>]*?time=\"([0-9.]+)\"");

  public static void main(String[] args) throws IOException {
    long since = args.length > 0 ? Long.parseLong(args[0]) * 1000 : 0;
    int top = args.length > 1 ? Integer.parseInt(args[1]) : 15;
    Map<String, Double> classes = new HashMap<>();
    List<Map.Entry<String, Double>> methods = new ArrayList<>();
    for (String root : new String[] {"modules", "examples"}) {
      try (Stream<Path> files = Files.walk(Path.of(root))) {
        for (Path report : (Iterable<Path>) files::iterator) {
          String name = report.getFileName().toString();
          if (!name.startsWith("TEST-") || !name.endsWith(".xml")) {
            continue;
          }
          if (Files.getLastModifiedTime(report).toMillis() < since) {
            continue;
          }
          String xml = Files.readString(report);
          Matcher suite = SUITE_TIME.matcher(xml);
          if (suite.find()) {
            classes.merge(simple(suite.group(1)), Double.parseDouble(suite.group(2)), Double::sum);
          }
          Matcher c = CASE.matcher(xml);
          while (c.find()) {
            methods.add(
                Map.entry(
                    simple(c.group(2)) + "." + c.group(1), Double.parseDouble(c.group(3))));
          }
        }
      }
    }
    double total = classes.values().stream().mapToDouble(Double::doubleValue).sum();
    System.out.printf(
        Locale.ROOT, "test time of this leg: %.0f s in %d classes%n", total, classes.size());
    print("slowest classes", new ArrayList<>(classes.entrySet()), total, top);
    print("slowest methods", methods, total, top);
  }

  private static void print(
      String title, List<Map.Entry<String, Double>> rows, double total, int top) {
    rows.sort(Map.Entry.<String, Double>comparingByValue().reversed());
    System.out.println(title + " (seconds, share of the leg's test time):");
    for (Map.Entry<String, Double> row : rows.subList(0, Math.min(top, rows.size()))) {
      System.out.printf(
          Locale.ROOT,
          "  %7.1f  %5.1f%%  %s%n",
          row.getValue(),
          total == 0 ? 0 : 100 * row.getValue() / total,
          row.getKey());
    }
  }

  private static String simple(String name) {
    return name.substring(name.lastIndexOf('.') + 1);
  }
}
