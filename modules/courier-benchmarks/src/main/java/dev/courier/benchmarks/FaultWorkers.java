package dev.courier.benchmarks;

import dev.courier.cli.Courier;
import dev.courier.testkit.JvmWorker;
import dev.courier.testkit.SettingsFile;
import dev.courier.testkit.WorkerProcess;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BiConsumer;

/**
 * {@link WorkerGroupFaultRun}'s retry workers, each {@code courier retry-worker} in a JVM of its
 * own, every other one reaching the broker through its proxy (so a partition cuts some off): they
 * join, and are SIGTERMed, SIGKILLed and frozen, one picked at random among those alive.
 */
final class FaultWorkers implements AutoCloseable {

  private final Path config;
  private final Path cutOffConfig;
  private final Random random;
  private final BiConsumer<String, String> event;
  private final List<WorkerProcess> workers = new ArrayList<>();
  private int started;
  private int kills;
  private int terms;

  /**
   * @param event logs a fault ({@code what}), and charges what is produced from then on to {@code
   *     kind} when given
   */
  FaultWorkers(
      Settings settings,
      String bootstrap,
      String proxied,
      Random random,
      BiConsumer<String, String> event) {
    this.config = settings.write(bootstrap);
    this.cutOffConfig = settings.write(proxied);
    this.random = random;
    this.event = event;
  }

  /** What every worker of the run is set to, but for how it reaches the broker. */
  record Settings(String topic, String group, String url, boolean ordered) {
    Path write(String bootstrap) {
      Map<String, String> settings = new LinkedHashMap<>();
      settings.put("bootstrap.servers", bootstrap);
      settings.put("retry.group.id", group);
      settings.put("retry.topic", topic);
      settings.put("retry.max.attempts", "3");
      if (ordered) {
        settings.put("retry.ordering", "key");
      }
      settings.put("retry.backoff.type", "exponential");
      settings.put("retry.backoff.initial.ms", "200");
      settings.put("retry.backoff.max.ms", "2000");
      settings.put("retry.budget.capacity", "1000");
      settings.put("retry.budget.refill.per.second", "1000");
      settings.put("retry.shutdown.timeout.ms", "5000");
      settings.put("retry.worker.http.port", "0");
      settings.put("retry.worker.target.url", url);
      settings.put("kafka.session.timeout.ms", "6000");
      settings.put("kafka.heartbeat.interval.ms", "1000");
      return SettingsFile.write(settings);
    }
  }

  void join() {
    boolean cutOff = started % 2 == 1;
    WorkerProcess w =
        JvmWorker.of(Courier.class)
            .name("worker-" + (++started))
            .args("retry-worker", "--config", (cutOff ? cutOffConfig : config).toString())
            .start();
    workers.add(w);
    event.accept("join " + w.pid() + (cutOff ? " (behind the proxy)" : ""), null);
  }

  int alive() {
    return (int) workers.stream().filter(WorkerProcess::isAlive).count();
  }

  void terminateOne() {
    WorkerProcess w = pickAlive();
    w.terminate(Duration.ofSeconds(60));
    terms++;
    event.accept("SIGTERM " + w.pid(), "SIGTERM worker");
  }

  void killOne() {
    WorkerProcess w = pickAlive();
    w.kill();
    kills++;
    event.accept("SIGKILL " + w.pid(), "SIGKILL worker");
  }

  /** Freezes one past {@code kafka.session.timeout.ms} (6 s): the group moves its partitions. */
  void freezeOne() {
    WorkerProcess w = pickAlive();
    w.freeze();
    event.accept("SIGSTOP " + w.pid(), "frozen worker");
    LockSupport.parkNanos(Duration.ofMillis(7_000 + random.nextInt(3_000)).toNanos());
    w.thaw();
    event.accept("SIGCONT " + w.pid(), "frozen worker");
  }

  private WorkerProcess pickAlive() {
    List<WorkerProcess> alive = workers.stream().filter(WorkerProcess::isAlive).toList();
    return alive.get(random.nextInt(alive.size()));
  }

  /** Workers started, SIGKILLed and SIGTERMed, in words. */
  String counts() {
    return "workers started " + started + ", SIGKILLed " + kills + ", SIGTERMed " + terms;
  }

  /** SIGTERM to every worker alive. */
  @Override
  public void close() {
    for (WorkerProcess w : workers) {
      if (w.isAlive()) {
        w.terminate(Duration.ofSeconds(30));
      }
    }
  }
}
