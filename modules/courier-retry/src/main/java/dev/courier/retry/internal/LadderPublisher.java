package dev.courier.retry.internal;

import dev.courier.core.CrashPoints;
import dev.courier.retry.Decision;
import dev.courier.retry.RetryTopics;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the ladder's producer: forwards a failed record to its next tier or to the DLT, with the
 * failure headers of {@link Hop}, without waiting; {@link #acknowledgedSoFar()} and {@link
 * #awaitAcknowledged()} are what stand between a forward and the commit of the original's offset.
 *
 * <p>A forward Kafka refuses for good (the record with the ladder's headers over {@code
 * max.request.size}, a tier the worker may not write) parks the record in the DLT as {@code
 * forward-refused}, without its value when the value is what is too large. A forward that can be
 * neither delivered nor parked (the broker gone longer than {@code delivery.timeout.ms}, a DLT the
 * worker may not write) leaves its record undone: no offset is committed past it, and it comes
 * again.
 */
public final class LadderPublisher implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LadderPublisher.class);

  /** How long parking a refused forward in the DLT may take before the record is left undone. */
  private static final Duration PARK_TIMEOUT = Duration.ofSeconds(30);

  /**
   * A forward, or a write of a blocked key's state ({@code failure} null, {@code lost} what to do
   * when it is not acknowledged; {@code record} the record whose commit waits for it, if any).
   */
  private record Forward(
      ConsumerRecord<byte[], byte[]> record,
      LadderState state,
      String target,
      Hop.Failure failure,
      Instant at,
      Future<RecordMetadata> ack,
      Runnable lost) {}

  /**
   * Hears of a forward (to a tier, or a dead letter) that Kafka refused for good and that was
   * parked in the DLT instead, as {@code forward-refused}.
   */
  @FunctionalInterface
  public interface Refusals {
    void parkedInstead(ConsumerRecord<byte[], byte[]> record, LadderState state);
  }

  private final Producer<byte[], byte[]> producer;
  private final RetryTopics topics;
  private final String group;
  private final int messageMaxChars;
  private final boolean includeStack;
  private final RetryMetrics metrics;
  private final LadderProgress progress;
  private final List<Forward> forwards = new ArrayList<>();

  private final SendsInFlight sends = new SendsInFlight();

  private Refusals refusals = (record, state) -> {};
  private LadderTracing tracing = LadderTracing.NONE;

  /** Key order: a keyed record's hop to a tier says so ({@link CourierHeaders#ORDERING}). */
  private boolean ordered;

  /** Key order: dead letters go in transactions fenced per partition; otherwise null. */
  private FencedLetters letters;

  public LadderPublisher(
      Producer<byte[], byte[]> producer,
      RetryTopics topics,
      String group,
      int messageMaxChars,
      boolean includeStack,
      RetryMetrics metrics,
      LadderProgress progress) {
    this.producer = producer;
    this.topics = topics;
    this.group = group;
    this.messageMaxChars = messageMaxChars;
    this.includeStack = includeStack;
    this.metrics = metrics;
    this.progress = progress;
  }

  /** Each hop carries the context of the attempt that sent it ({@link LadderTracing}). */
  void tracing(LadderTracing tracing) {
    this.tracing = tracing;
  }

  public String tierTopic(int tier) {
    return topics.tier(tier);
  }

  public String deadLetterTopic() {
    return topics.deadLetter();
  }

  /**
   * Key order ({@code retry.ordering=key}): {@code refusals} hears of forwards to a tier parked
   * instead (it resolves their keys), and a keyed record's hop to a tier carries {@link
   * CourierHeaders#ORDERING}, so a copy its key no longer waits for is known as one.
   */
  void keyOrder(Refusals refusals) {
    this.refusals = refusals;
    this.ordered = true;
  }

  /** Key order's dead letters are written through {@code letters} ({@link FencedLetters}). */
  void fencedLetters(FencedLetters letters) {
    this.letters = letters;
  }

  /** A dead letter: fenced per partition under key order, through the ladder's producer else. */
  private Future<RecordMetadata> sendLetter(ProducerRecord<byte[], byte[]> letter) {
    return letters != null ? letters.send(letter) : producer.send(letter);
  }

  /**
   * Writes a blocked key's state ({@code value} null: the key is free); like a forward, it is
   * acknowledged before the next commit, and one that is not runs {@code lost} and holds back the
   * commit of each source's partition past that source.
   */
  public Future<RecordMetadata> writeState(
      String topic,
      int partition,
      byte[] key,
      byte[] value,
      int generation,
      Collection<ConsumerRecord<byte[], byte[]>> sources,
      Runnable lost) {
    ProducerRecord<byte[], byte[]> write = new ProducerRecord<>(topic, partition, key, value);
    ChainRecords.stamp(write.headers(), generation);
    Future<RecordMetadata> ack = producer.send(write);
    add(new Forward(null, null, topic, null, null, ack, lost));
    for (ConsumerRecord<byte[], byte[]> source : sources) {
      holdOn(source, ack);
    }
    return ack;
  }

  /**
   * The commit of {@code record} waits for this send as well (a state write sent before the record
   * was handled); one that is not delivered leaves the record undone.
   */
  public void holdOn(ConsumerRecord<byte[], byte[]> record, Future<RecordMetadata> send) {
    if (sends.firstHold(send, new TopicPartition(record.topic(), record.partition()))) {
      add(new Forward(record, null, topics.blocked(), null, null, send, null));
    }
  }

  /** Whether this send is settled: answered and taken into account (or never held a commit). */
  public boolean settled(Future<RecordMetadata> send) {
    return sends.isSettled(send);
  }

  private void add(Forward f) {
    forwards.add(f);
    sends.added(f.ack());
  }

  /** To tier {@code tier}, due when the failure says. */
  public void retry(
      ConsumerRecord<byte[], byte[]> record,
      LadderState state,
      int tier,
      Hop.Failure failure,
      Instant now) {
    send(record, state, topics.tier(tier), failure, now);
  }

  /** To the dead-letter topic; the answer is settled with the other forwards as well. */
  public Future<RecordMetadata> deadLetter(
      ConsumerRecord<byte[], byte[]> record, LadderState state, Hop.Failure failure, Instant now) {
    return send(record, state, topics.deadLetter(), failure, now);
  }

  /**
   * A dead letter whose answer the caller settles itself: not held with the forwards, so it holds
   * no commit and a failure brings no record back from its partition (key order's waiting records
   * that follow their head into the DLT, read from below what is committed, are sent so and sent
   * again until Kafka takes them).
   *
   * @param withoutValue send it without the value, which made it too large
   */
  Future<RecordMetadata> deadLetterAside(
      ConsumerRecord<byte[], byte[]> record,
      LadderState state,
      Hop.Failure failure,
      Instant now,
      boolean withoutValue) {
    ProducerRecord<byte[], byte[]> letter = hop(record, state, topics.deadLetter(), failure, now);
    if (withoutValue) {
      letter = Hop.withoutValue(letter, record);
    }
    try (Scope ignored = tracing.sending(record)) {
      return sendLetter(letter);
    }
  }

  private Future<RecordMetadata> send(
      ConsumerRecord<byte[], byte[]> record,
      LadderState state,
      String topic,
      Hop.Failure failure,
      Instant now) {
    Future<RecordMetadata> ack;
    try (Scope ignored = tracing.sending(record)) {
      ProducerRecord<byte[], byte[]> hop = hop(record, state, topic, failure, now);
      ack = topic.equals(topics.deadLetter()) ? sendLetter(hop) : producer.send(hop);
    }
    add(new Forward(record, state, topic, failure, now, ack, null));
    return ack;
  }

  private ProducerRecord<byte[], byte[]> hop(
      ConsumerRecord<byte[], byte[]> record,
      LadderState state,
      String topic,
      Hop.Failure failure,
      Instant now) {
    boolean orderedHop = ordered && Hop.keyWaits(record, topics, topic);
    ProducerRecord<byte[], byte[]> hop =
        Hop.of(
            record, state, topic, group, failure, now, messageMaxChars, includeStack, orderedHop);
    tracing.inject(record, hop.headers());
    return hop;
  }

  /**
   * Settles the forwards Kafka has answered, in order, without waiting for the rest: the loop goes
   * on handling while they travel, and commits only below the earliest of them. Waiting for every
   * forward before each commit cost the loop a produce round trip per poll, and key order writes
   * state before nearly every one.
   */
  public ForwardAcks acknowledgedSoFar() {
    List<Undelivered> undelivered = new ArrayList<>();
    Map<TopicPartition, Long> unacknowledged = new HashMap<>();
    boolean settled = false;
    // The answers are in: reading them must not fail on an interrupt meant for the loop's wait.
    boolean interrupted = Thread.interrupted();
    try {
      // In one pass: removing each answered forward from the list on its own shifted the rest
      // each time, and a backlog's hundreds of forwards a poll made that the loop's top cost.
      List<Forward> answered = new ArrayList<>();
      forwards.removeIf(
          f -> {
            if (f.ack().isDone()) {
              answered.add(f);
              return true;
            }
            if (f.record() != null) {
              unacknowledged.merge(source(f), f.record().offset(), Math::min);
            }
            return false;
          });
      for (Forward f : answered) {
        sends.settled(f.ack());
        settled = true;
        try {
          settle(f, undelivered);
        } catch (InterruptedException e) {
          if (f.record() != null) { // not reached: the future is done
            undelivered.add(undelivered(f, e));
          }
        }
      }
    } finally {
      if (interrupted) {
        Thread.currentThread().interrupt();
      }
    }
    if (settled && undelivered.isEmpty()) {
      CrashPoints.AFTER_FORWARD_BEFORE_OFFSET_COMMIT.reach();
    }
    return new ForwardAcks(undelivered, unacknowledged);
  }

  /**
   * Waits for every forward so far; a refused one is parked in the DLT where it can be.
   *
   * @return the forwards that were neither delivered nor parked: no offset may be committed past
   *     their records
   */
  public List<Undelivered> awaitAcknowledged() {
    List<Undelivered> undelivered = new ArrayList<>();
    if (!forwards.isEmpty()) {
      // Waited for right away: without a flush each wait also waited out linger.ms.
      producer.flush();
    }
    try {
      for (int i = 0; i < forwards.size(); i++) {
        try {
          settle(forwards.get(i), undelivered);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          for (Forward left : forwards.subList(i, forwards.size())) {
            if (left.record() != null) {
              undelivered.add(undelivered(left, e));
            }
            if (left.lost() != null) {
              left.lost().run();
            }
          }
          break;
        }
      }
    } finally {
      forwards.clear();
      sends.clear();
    }
    if (undelivered.isEmpty()) {
      CrashPoints.AFTER_FORWARD_BEFORE_OFFSET_COMMIT.reach();
    }
    return undelivered;
  }

  /** Waits for one forward's answer; a refusal is parked where it can be, or left undelivered. */
  private void settle(Forward f, List<Undelivered> undelivered) throws InterruptedException {
    try {
      f.ack().get();
    } catch (ExecutionException e) {
      if (f.failure() == null) {
        if (f.lost() != null) {
          LOG.warn("blocked-key state to {} not written: {}", f.target(), e.getCause().toString());
          f.lost().run();
        }
        if (f.record() != null) {
          undelivered.add(undelivered(f, e.getCause()));
        }
        return;
      }
      Undelivered u = park(f, e.getCause());
      if (u != null) {
        undelivered.add(u);
      }
    }
  }

  private static TopicPartition source(Forward f) {
    return new TopicPartition(f.record().topic(), f.record().partition());
  }

  /**
   * Parks a record whose forward Kafka refused for good in the DLT as {@code forward-refused};
   * returns it undelivered when the refusal may pass (it comes again) or the DLT refuses too.
   */
  private Undelivered park(Forward f, Throwable cause) {
    if (cause instanceof RetriableException) {
      return undelivered(f, cause); // the broker away past delivery.timeout.ms: it comes again
    }
    String message = "the forward to " + f.target() + " was refused: " + cause;
    // A tier's failure names the next attempt; the calls made are the state's attempt.
    int attempts =
        f.target().equals(topics.deadLetter()) ? f.failure().attempts() : f.state().attempt();
    Hop.Failure parked =
        Hop.Failure.notExecuted(
            Decision.DeadLetter.FORWARD_REFUSED, attempts, f.failure().firstFailure(), message);
    ProducerRecord<byte[], byte[]> letter =
        hop(f.record(), f.state(), topics.deadLetter(), parked, f.at());
    if (cause instanceof RecordTooLargeException || f.target().equals(topics.deadLetter())) {
      letter = Hop.withoutValue(letter, f.record());
    }
    try {
      sendLetter(letter).get(PARK_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      Throwable why = e instanceof ExecutionException ? e.getCause() : e;
      LOG.error("{}; nor could it be parked in the DLT ({})", message, why.toString());
      return undelivered(f, cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return undelivered(f, e);
    }
    if (!f.target().equals(topics.deadLetter())) {
      // A refused letter to the DLT was counted as dead-lettered when it was sent.
      metrics.deadLettered(Decision.DeadLetter.FORWARD_REFUSED);
      progress.deadLettered();
    }
    refusals.parkedInstead(f.record(), f.state());
    LOG.warn(
        "{}-{}@{} dead-lettered as '{}': {}",
        f.record().topic(),
        f.record().partition(),
        f.record().offset(),
        Decision.DeadLetter.FORWARD_REFUSED,
        message);
    return null;
  }

  private static Undelivered undelivered(Forward f, Throwable cause) {
    return new Undelivered(source(f), f.record().offset(), f.target(), cause, f.record());
  }

  @Override
  public void close() {
    if (letters != null) {
      letters.close();
    }
    producer.close(Duration.ofSeconds(5));
  }
}
