package dev.courier.benchmarks;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import org.openjdk.jmh.infra.Blackhole;

/**
 * One method of {@link AvroSerdeBenchmark} in a JVM of its own, run in slices on its parent's word
 * ({@link PairedForks}): it reads "run &lt;ms&gt;" from stdin, calls the method for that long, and
 * answers "slice &lt;calls&gt; &lt;nanos&gt;". Alone in its JVM, the method's call sites see only
 * its own decoder or encoder, as in a JMH fork.
 */
public final class SerdeSliceWorker {

  static final String READY = "ready";
  static final String SLICE = "slice ";

  /** How many calls between two looks at the clock: reading it costs about one call. */
  private static final int CALLS_PER_CHECK = 256;

  private SerdeSliceWorker() {}

  public static void main(String[] args) throws Exception {
    AvroSerdeBenchmark bench = new AvroSerdeBenchmark();
    bench.setUp();
    Callable<Object> method = method(bench, args[0]);
    // Keeps each result alive as JMH does, so the JIT cannot drop the call.
    Blackhole sink =
        new Blackhole(
            "Today's password is swordfish. I understand instantiating Blackholes directly is"
                + " dangerous.");
    BufferedReader in =
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    System.out.println(READY);
    System.out.flush();
    for (String line = in.readLine();
        line != null && line.startsWith("run ");
        line = in.readLine()) {
      long budget = Long.parseLong(line.substring(4)) * 1_000_000;
      long calls = 0;
      long start = System.nanoTime();
      long now;
      do {
        for (int i = 0; i < CALLS_PER_CHECK; i++) {
          sink.consume(method.call());
        }
        calls += CALLS_PER_CHECK;
        now = System.nanoTime();
      } while (now - start < budget);
      System.out.println(SLICE + calls + " " + (now - start));
      System.out.flush();
    }
    bench.tearDown();
  }

  private static Callable<Object> method(AvroSerdeBenchmark bench, String name) {
    return switch (name) {
      case "courierSerialize" -> bench::courierSerialize;
      case "rawSerialize" -> bench::rawSerialize;
      case "courierDeserialize" -> bench::courierDeserialize;
      case "rawDeserialize" -> bench::rawDeserialize;
      case "courierDeserializeFromBatch" -> bench::courierDeserializeFromBatch;
      case "rawDeserializeFromBatch" -> bench::rawDeserializeFromBatch;
      default -> throw new IllegalArgumentException("no serde benchmark method " + name);
    };
  }
}
