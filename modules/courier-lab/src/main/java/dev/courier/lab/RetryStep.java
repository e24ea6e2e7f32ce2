package dev.courier.lab;

import dev.courier.core.CourierHeaders;
import dev.courier.core.PermanentError;
import dev.courier.idempotency.IdempotentHandler;
import dev.courier.idempotency.Outcome;
import dev.courier.retry.DltFilter;
import dev.courier.retry.DltRecord;
import dev.courier.retry.DltReplayer;
import dev.courier.retry.DltReplayerConfig;
import dev.courier.retry.RecordHandler;
import dev.courier.retry.ReplayTarget;
import dev.courier.retry.RetryBudget;
import dev.courier.retry.RetryConfig;
import dev.courier.retry.RetryProgress;
import dev.courier.retry.RetryTopics;
import dev.courier.retry.RetryingConsumer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Step 4: the retry ladder, the DLT and an audited replay from it. */
final class RetryStep implements LabStep {

  private static final String TOPIC = "lab.payments";
  private static final String DLT = new RetryTopics(TOPIC, group(TOPIC), 2).deadLetter();
  private static final String EXPIRING = "lab.payments.expiring";

  private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
  private final Map<String, Integer> transientFailures = new ConcurrentHashMap<>();
  private final Set<String> frozen = ConcurrentHashMap.newKeySet();
  private final List<Duration> lateness = new CopyOnWriteArrayList<>();
  private final List<Outcome> outcomes = new CopyOnWriteArrayList<>();

  @Override
  public String id() {
    return "retry";
  }

  @Override
  public String title() {
    return "Retry ladder and DLT: a transient failure recovers, a poison record and an expired one"
        + " park, an audited replay applies once";
  }

  @Override
  public String why() {
    return "Failures are classified. A transient one (database unavailable) climbs the delay"
        + " topics and succeeds on attempt 3, never before its delay. A permanent one (a negative"
        + " amount, a frozen account) goes to the DLT at once with its reason and coordinates. A"
        + " record whose deadline passes while it waits is parked as expired, unexecuted. The"
        + " operator parks what must never run, then replays the rest: dry run first, a required"
        + " reason, rate-limited, audited; the replay re-enters through the idempotency check, so"
        + " running it twice changes nothing.";
  }

  @Override
  public void run(Lab lab) throws Exception {
    try (Connection c = lab.db().connection();
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE lab_balance (account text PRIMARY KEY, balance bigint NOT NULL)");
    }
    lab.kafka().createTopic(TOPIC, 1);
    lab.kafka().createTopic(EXPIRING, 1);
    IdempotentHandler<String, String> idempotent =
        IdempotentHandler.<String, String>builder()
            .dataSource(lab.db().dataSource())
            .consumerName("lab-payments")
            .meterRegistry(new SimpleMeterRegistry())
            .effect(RetryStep::credit)
            .build();
    RecordHandler<String, String> handler = record -> handle(record, idempotent);

    transientFailures.put("op-1", 2);
    frozen.add("acc-9");
    send(lab, TOPIC, "op-1", "acc-1:10", Map.of());
    send(lab, TOPIC, "op-2", "acc-2:-5", Map.of("trace", "abc"));
    send(lab, TOPIC, "op-3", "acc-9:25", Map.of());
    lab.say("sent op-1 (database down twice), op-2 (amount -5), op-3 (account acc-9 frozen)");
    RetryProgress p =
        run(
            lab,
            consumer(lab, TOPIC, handler, null),
            x -> x.succeeded() >= 1 && x.deadLettered() >= 2);
    lab.expect("op-1 calls (attempts 1, 2 fail; 3 succeeds)", count("op-1"), 3);
    lab.expect("retries through the delay tiers", p.retried(), 2L);
    lab.expect("balance of acc-1", balance(lab, "acc-1"), 10L);
    lab.check(
        "retries never ran before they were due (lateness)",
        lateness.size() == 2 && lateness.stream().noneMatch(Duration::isNegative),
        lateness.stream().map(d -> d.toMillis() + " ms").toList());

    try (DltReplayer replayer =
        DltReplayer.create(
            Map.of(
                "bootstrap.servers",
                lab.kafka().bootstrapServers(),
                DltReplayerConfig.REPLAY_RATE_PER_SECOND,
                2.0),
            lab.db().dataSource())) {
      DltRecord poison = one(replayer, "op-2");
      lab.expect(
          "op-2 in the DLT: reason, attempts",
          List.of(poison.reason(), poison.attempts()),
          List.of("permanent", 1));
      lab.expect("op-2 calls", count("op-2"), 1);
      lab.check(
          "op-2's recorded failure",
          poison.message().contains("credit amount must be positive"),
          poison.exceptionClass() + ": " + poison.message());
      lab.expect(
          "op-2's original coordinates",
          poison.originalTopic() + "-" + poison.originalPartition() + "@" + poison.originalOffset(),
          TOPIC + "-0@1");
      lab.expect(
          "op-2's own headers, byte for byte",
          poison.ownHeaders().stream()
              .map(h -> h.key() + "=" + new String(h.value(), StandardCharsets.UTF_8))
              .toList(),
          List.of("id=op-2", "trace=abc"));
      DltRecord frozenRecord = one(replayer, "op-3");
      lab.expect(
          "op-3 in the DLT: reason, message",
          List.of(frozenRecord.reason(), frozenRecord.message()),
          List.of("permanent", "account acc-9 is frozen"));

      // The budget is spent: op-4's due retry waits at its tier past its deadline.
      RetryBudget spent = RetryBudget.of(1, 0.2, Clock.systemUTC());
      spent.tryAcquire();
      transientFailures.put("op-4", 1);
      send(
          lab,
          EXPIRING,
          "op-4",
          "acc-4:10",
          Map.of("courier.deadline", String.valueOf(Instant.now().plusSeconds(2).toEpochMilli())));
      lab.say("sent op-4 with a 2 s deadline; it fails once, and the retry budget is spent");
      run(lab, consumer(lab, EXPIRING, handler, spent), x -> x.deadLettered() >= 1);
      DltRecord expired =
          replayer
              .list(
                  new RetryTopics(EXPIRING, group(EXPIRING), 2).deadLetter(),
                  DltFilter.all().key("op-4"))
              .get(0);
      lab.expect("op-4 in the DLT: reason", expired.reason(), "expired");
      lab.expect("op-4 calls (never run after its deadline)", count("op-4"), 1);

      replayer.park(poison, "lab", "negative amount: refunded by hand");
      frozen.clear();
      lab.say("acc-9 unfrozen; op-2 parked by the operator");
      DltReplayer.ReplayPlan plan =
          replayer.plan(DLT, DltFilter.all(), ReplayTarget.failingGroup());
      plan.render().lines().forEach(l -> lab.say("  " + l));
      lab.expect(
          "records the dry run would replay / leaves parked",
          List.of(plan.records().size(), plan.parked().size()),
          List.of(1, 1));
      DltReplayer.ReplayResult result = replayer.replay(plan, "lab", "acc-9 unfrozen, incident 42");
      lab.expect("records replayed", result.sent(), 1);
      outcomes.clear();
      run(lab, consumer(lab, TOPIC, handler, null), x -> x.finished() >= 1);
      lab.expect("outcome of the replayed op-3", List.copyOf(outcomes), List.of(Outcome.APPLIED));
      lab.expect("balance of acc-9", balance(lab, "acc-9"), 25L);

      replayer.replay(
          replayer.plan(DLT, DltFilter.all().key("op-3"), ReplayTarget.failingGroup()),
          "lab",
          "double check");
      outcomes.clear();
      run(lab, consumer(lab, TOPIC, handler, null), x -> x.finished() >= 1);
      lab.expect(
          "outcome of replaying op-3 again", List.copyOf(outcomes), List.of(Outcome.DUPLICATE));
      lab.expect("balance of acc-9 after the second replay", balance(lab, "acc-9"), 25L);
      List<String> trail = replayer.auditTrail(DLT);
      lab.expect("audit entries of the DLT (park, replay, replay)", trail.size(), 3);
      trail.forEach(e -> lab.say("  audit: " + e));
    }
  }

  private void handle(
      ConsumerRecord<String, String> record, IdempotentHandler<String, String> idempotent)
      throws Exception {
    String key = CourierHeaders.text(record.headers(), CourierHeaders.ID).orElseThrow();
    calls.computeIfAbsent(key, k -> new AtomicInteger()).incrementAndGet();
    CourierHeaders.text(record.headers(), CourierHeaders.DUE)
        .map(Long::parseLong)
        .map(Instant::ofEpochMilli)
        .ifPresent(due -> lateness.add(Duration.between(due, Instant.now())));
    Integer left = transientFailures.get(key);
    if (left != null && left > 0) {
      transientFailures.put(key, left - 1);
      throw new SQLTransientConnectionException("payment database unavailable");
    }
    String account = record.value().split(":")[0];
    if (frozen.contains(account)) {
      throw new AccountFrozen("account " + account + " is frozen");
    }
    outcomes.add(idempotent.handle(record));
  }

  private static void credit(Connection c, ConsumerRecord<String, String> record) throws Exception {
    String[] parts = record.value().split(":");
    long amount = Long.parseLong(parts[1]);
    if (amount <= 0) {
      throw new IllegalArgumentException("credit amount must be positive, got " + amount);
    }
    try (PreparedStatement ps =
        c.prepareStatement(
            "INSERT INTO lab_balance VALUES (?, ?) ON CONFLICT (account) DO UPDATE"
                + " SET balance = lab_balance.balance + EXCLUDED.balance")) {
      ps.setString(1, parts[0]);
      ps.setLong(2, amount);
      ps.executeUpdate();
    }
  }

  private int count(String key) {
    AtomicInteger n = calls.get(key);
    return n == null ? 0 : n.get();
  }

  private static DltRecord one(DltReplayer replayer, String key) {
    return replayer.list(DLT, DltFilter.all().key(key)).get(0);
  }

  private static long balance(Lab lab, String account) throws Exception {
    try (Connection c = lab.db().connection();
        PreparedStatement ps =
            c.prepareStatement("SELECT balance FROM lab_balance WHERE account = ?")) {
      ps.setString(1, account);
      try (ResultSet rs = ps.executeQuery()) {
        return rs.next() ? rs.getLong(1) : 0;
      }
    }
  }

  private static void send(
      Lab lab, String topic, String key, String value, Map<String, String> headers)
      throws Exception {
    try (KafkaProducer<String, String> producer =
        new KafkaProducer<>(
            lab.kafka().producerConfig(), new StringSerializer(), new StringSerializer())) {
      ProducerRecord<String, String> r = new ProducerRecord<>(topic, value.split(":")[0], value);
      r.headers().add(CourierHeaders.ID, key.getBytes(StandardCharsets.UTF_8));
      headers.forEach((k, v) -> r.headers().add(k, v.getBytes(StandardCharsets.UTF_8)));
      producer.send(r).get(30, TimeUnit.SECONDS);
    }
  }

  /** The consumer group of the lab's ladder on {@code topic}. */
  private static String group(String topic) {
    return "lab-" + topic;
  }

  private static RetryingConsumer<String, String> consumer(
      Lab lab, String topic, RecordHandler<String, String> handler, RetryBudget budget) {
    Map<String, Object> settings = new HashMap<>();
    settings.put(RetryConfig.BOOTSTRAP_SERVERS, lab.kafka().bootstrapServers());
    settings.put(RetryConfig.GROUP_ID, group(topic));
    settings.put(RetryConfig.TOPIC, topic);
    settings.put(RetryConfig.MAX_ATTEMPTS, 3);
    settings.put(RetryConfig.BACKOFF_TYPE, "fixed");
    settings.put(RetryConfig.BACKOFF_INITIAL_MS, 500);
    settings.put(RetryConfig.BACKOFF_MAX_MS, 500);
    RetryingConsumer.Builder<String, String> builder =
        RetryingConsumer.builder(settings, new StringDeserializer(), new StringDeserializer())
            .handler(handler);
    if (budget != null) {
      builder.budget(budget);
    }
    return builder.build();
  }

  /** Runs the consumer on its own thread until its progress satisfies {@code done}. */
  private static RetryProgress run(
      Lab lab, RetryingConsumer<?, ?> consumer, Predicate<RetryProgress> done) throws Exception {
    ExecutorService thread = Executors.newSingleThreadExecutor();
    Future<?> loop = thread.submit(consumer::run);
    try {
      return lab.await(
          "the retrying consumer",
          () -> {
            if (loop.isDone()) {
              loop.get();
            }
            return consumer.progress();
          },
          done);
    } finally {
      consumer.close();
      loop.get(30, TimeUnit.SECONDS);
      thread.shutdown();
    }
  }

  /** A refusal retrying cannot fix until someone acts. */
  static final class AccountFrozen extends RuntimeException implements PermanentError {
    AccountFrozen(String message) {
      super(message);
    }

    @Override
    public String reason() {
      return "account frozen";
    }
  }
}
