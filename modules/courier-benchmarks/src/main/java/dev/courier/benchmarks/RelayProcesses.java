package dev.courier.benchmarks;

import dev.courier.cli.Courier;
import dev.courier.outbox.OutboxRelayConfig;
import dev.courier.outbox.OutboxShards;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.WorkerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

/**
 * One {@code courier relay} process per outbox shard, from the packaged jar; SIGTERM for all on
 * close. {@code -Dbench.jvm.relay="..."} adds JVM options (e.g. an AOT cache, {@code {shard}} for
 * the shard's number, {@code {launch}} for the process's number in this run: a flight recording or
 * GC log per process), {@code -Dbench.java.relay=<JDK home>} runs them on another JDK.
 */
record RelayProcesses(List<WorkerProcess> processes) implements AutoCloseable {

  static final String STREAMING = Courier.RELAY_STREAMING;
  private static final AtomicInteger LAUNCHES = new AtomicInteger();

  /** Starts them and waits until every one streams. */
  static RelayProcesses start(Path jar, Map<String, String> settings, OutboxShards shards) {
    RelayProcesses relays = launch(jar, settings, shards);
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    for (WorkerProcess relay : relays.processes()) {
      while (!relay.output().contains(STREAMING)) {
        if (!relay.isAlive() || System.nanoTime() > deadline) {
          relays.close();
          throw new IllegalStateException("a relay did not start streaming: " + relay.output());
        }
        LockSupport.parkNanos(Duration.ofMillis(50).toNanos());
      }
    }
    return relays;
  }

  /** Starts them, all at once, without waiting. */
  static RelayProcesses launch(Path jar, Map<String, String> settings, OutboxShards shards) {
    List<WorkerProcess> processes = new ArrayList<>();
    for (int shard = 0; shard < shards.count(); shard++) {
      processes.add(launchOne(jar, settings, shard, List.of()));
    }
    return new RelayProcesses(processes);
  }

  /** One relay, of shard {@code shard}, with {@code options} besides the usual JVM options. */
  static WorkerProcess launchOne(
      Path jar, Map<String, String> settings, int shard, List<String> options) {
    List<String> args = new ArrayList<>(List.of("relay", "--set", "relay.http.port=0"));
    settings.forEach((k, v) -> args.addAll(List.of("--set", k + "=" + v)));
    args.addAll(List.of("--set", OutboxRelayConfig.SHARD_INDEX + "=" + shard));
    JvmWorker worker =
        JvmWorker.of(Courier.class)
            .name("relay-" + shard)
            .classpath(jar.toAbsolutePath().toString())
            .args(args.toArray(String[]::new));
    String java = System.getProperty("bench.java.relay");
    if (java != null && !java.isBlank()) {
      worker.javaHome(Path.of(java));
    }
    RelayJvm.options().forEach(worker::jvmOption);
    options.forEach(worker::jvmOption);
    String launch = String.valueOf(LAUNCHES.incrementAndGet());
    RelayJvm.extra(String.valueOf(shard), launch).forEach(worker::jvmOption);
    return worker.start();
  }

  String output() {
    return processes.stream().map(WorkerProcess::output).reduce("", String::concat);
  }

  @Override
  public void close() {
    processes.forEach(p -> p.terminate(Duration.ofSeconds(30)));
  }
}
