package dev.courier.cli;

import dev.courier.core.internal.ClassPreload;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

@Command(
    name = "aot-training",
    mixinStandardHelpOptions = true,
    description = {
      "Loads and links the classes a relay loads from its start through streaming (relay-classes"
          + ".txt, recorded from a measured run), runs none of them, connects to nothing and exits"
          + " 0.",
      "The training run of a Java 25 ahead-of-time cache where no PostgreSQL or Kafka is"
          + " reachable, as in an image build: java -XX:AOTCacheOutput=courier.aot -cp courier.jar"
          + " dev.courier.cli.Courier aot-training; then start services with"
          + " -XX:AOTCache=courier.aot."
    })
final class AotTrainingCommand implements Callable<Integer> {

  static final String RESOURCE = "relay-classes.txt";

  @Override
  public Integer call() {
    long begun = System.nanoTime();
    List<String> names = ClassPreload.names(AotTrainingCommand.class, RESOURCE);
    ClassPreload.Loaded loaded =
        ClassPreload.load(names, AotTrainingCommand.class.getClassLoader());
    System.out.printf(
        "courier aot-training: loaded and linked %d of %d classes in %d ms%n",
        loaded.linked(), loaded.listed(), (System.nanoTime() - begun) / 1_000_000);
    return 0;
  }
}
