package dev.courier.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Writes the ahead-of-time cache's training list ({@code relay-classes.txt} in courier-cli): every
 * class the relays loaded, in the order first loaded, from their {@code -XX:DumpLoadedClassList}
 * files (e.g. {@code -Dbench.jvm.relay=-XX:DumpLoadedClassList=/tmp/cl-{launch}.txt} on a short
 * {@link OutboxProductionRun} with a catch-up, on the image's JDK). The JVM's {@code @} lines
 * (constant pool entries, lambda proxies) are left out: a training run by name cannot ask for them.
 *
 * <p>Run: {@code java -cp modules/courier-benchmarks/target/benchmarks.jar
 * dev.courier.benchmarks.RelayClassList <class list>... > relay-classes.txt}
 */
public final class RelayClassList {

  private RelayClassList() {}

  public static void main(String[] args) throws IOException {
    if (args.length == 0) {
      System.err.println("usage: RelayClassList <class list>...");
      System.exit(2);
    }
    Set<String> names = new LinkedHashSet<>();
    for (String file : args) {
      for (String line : Files.readAllLines(Path.of(file))) {
        if (!line.isBlank() && !line.startsWith("#") && !line.startsWith("@")) {
          names.add(line.strip().split("\\s+", 2)[0].replace('/', '.'));
        }
      }
    }
    System.out.println(
        "# The classes a courier relay loaded from its start through streaming and a catch-up,"
            + " for the ahead-of-time cache's training run (courier aot-training); written by"
            + " dev.courier.benchmarks.RelayClassList (docs/operations/deploy.md).");
    names.forEach(System.out::println);
  }
}
