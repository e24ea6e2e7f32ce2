package dev.courier.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Writes the relay's standby preload list ({@code engine-classes.txt} in courier-outbox): the
 * classes a relay loaded from its jars between winning the lock and relaying its first batch, read
 * from a {@code -Xlog:class+load:file=<log>:time} log of that relay and the relay's own log (its
 * {@code leading slot} and {@code first batch} lines, same clock). Hidden and generated classes
 * (lambdas, proxies) and those of the JDK's archive are left out: a standby cannot load those by
 * name, or needs not.
 *
 * <p>Run: {@code java -cp modules/courier-benchmarks/target/benchmarks.jar
 * dev.courier.benchmarks.EngineClassList <class-load log> <relay log> > engine-classes.txt}
 */
public final class EngineClassList {

  private static final Pattern LOADED =
      Pattern.compile(
          "^\\[(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3})[^]]*]\\s+(\\S+) source: (jar|file).*");
  private static final Pattern RELAY_LINE =
      Pattern.compile("^(\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d),(\\d{3}) .*");

  private EngineClassList() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 2) {
      System.err.println("usage: EngineClassList <class-load log> <relay log>");
      System.exit(2);
    }
    List<String> relay = Files.readAllLines(Path.of(args[1]));
    String from = at(relay, "leading slot");
    String to = at(relay, "first batch");
    Set<String> names = new LinkedHashSet<>();
    for (String line : Files.readAllLines(Path.of(args[0]))) {
      Matcher m = LOADED.matcher(line);
      if (m.matches()
          && m.group(1).compareTo(from) >= 0
          && m.group(1).compareTo(to) <= 0
          && !m.group(2).contains("$$")) {
        names.add(m.group(2));
      }
    }
    System.out.println(
        "# Classes a relay loaded between winning the lock and its first batch, for a standby to"
            + " preload; written by dev.courier.benchmarks.EngineClassList.");
    names.forEach(System.out::println);
  }

  /** The time of the relay log's first line containing {@code text}, as the class log writes it. */
  private static String at(List<String> lines, String text) {
    for (String line : lines) {
      Matcher m = RELAY_LINE.matcher(line);
      if (line.contains(text) && m.matches()) {
        return m.group(1) + "." + m.group(2);
      }
    }
    throw new IllegalArgumentException("no line with \"" + text + "\" in the relay's log");
  }
}
