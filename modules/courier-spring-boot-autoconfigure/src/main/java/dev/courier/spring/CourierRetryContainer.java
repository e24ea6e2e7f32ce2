package dev.courier.spring;

import dev.courier.retry.RetryConfig;
import dev.courier.retry.RetryProgress;
import dev.courier.retry.RetryTopics;
import dev.courier.retry.RetryingConsumer;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.config.ConfigException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.kafka.listener.AbstractMessageListenerContainer;
import org.springframework.kafka.listener.AcknowledgingConsumerAwareMessageListener;
import org.springframework.kafka.listener.ListenerExecutionFailedException;
import org.springframework.kafka.listener.MessageListener;
import org.springframework.kafka.listener.MessageListenerContainer;

/**
 * The container of one {@code @KafkaListener} on Courier's retry ladder: {@code concurrency} {@link
 * RetryingConsumer}s of the listener's topic and group, each calling the listener's method for the
 * main topic and every tier, exactly as {@code courier retry-worker} calls its handler. A failure
 * is classified and forwarded to the next tier or the DLT (acknowledged before the offset is
 * committed); {@link #stop()} takes no new record, lets the calls in flight finish within {@code
 * retry.shutdown.timeout.ms}, commits and leaves the group at once.
 */
public final class CourierRetryContainer implements MessageListenerContainer {

  private static final Logger LOG = LoggerFactory.getLogger(CourierRetryContainer.class);
  private static final Duration FIRST_WAIT = Duration.ofSeconds(1);
  private static final Duration LONGEST_WAIT = Duration.ofSeconds(10);

  private final String listenerId;
  private final RetryConfig config;
  private final int concurrency;
  private final Function<CourierRetryContainer, RetryingConsumer<Object, Object>> consumers;
  private final List<RetryingConsumer<Object, Object>> running = new ArrayList<>();
  private final List<Thread> threads = new ArrayList<>();
  private volatile CountDownLatch stopped = new CountDownLatch(1);
  private volatile boolean autoStartup = true;
  private volatile Object listener;
  private volatile String failure;

  CourierRetryContainer(
      String listenerId,
      RetryConfig config,
      int concurrency,
      Function<CourierRetryContainer, RetryingConsumer<Object, Object>> consumers) {
    this.listenerId = listenerId;
    this.config = config;
    this.concurrency = concurrency;
    this.consumers = consumers;
  }

  @Override
  public void setupMessageListener(Object messageListener) {
    if (!(messageListener instanceof AcknowledgingConsumerAwareMessageListener<?, ?>)
        && !(messageListener instanceof MessageListener<?, ?>)) {
      throw new IllegalStateException(
          "listener "
              + listenerId
              + ": Courier's retry ladder calls record listeners, one record at a time (not "
              + messageListener.getClass().getName()
              + ")");
    }
    this.listener = messageListener;
  }

  /** Calls the listener's method; what it throws is what the ladder classifies. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  void call(ConsumerRecord<Object, Object> record) throws Exception {
    try {
      if (listener instanceof AcknowledgingConsumerAwareMessageListener l) {
        // The ladder commits: the listener gets no Acknowledgment and no Consumer.
        l.onMessage(record, null, null);
      } else {
        ((MessageListener) listener).onMessage(record);
      }
    } catch (ListenerExecutionFailedException e) {
      // Spring's wrapper says nothing the classifier needs; what the method threw does.
      if (e.getCause() instanceof Exception cause) {
        throw cause;
      }
      throw e;
    }
  }

  @Override
  public synchronized void start() {
    if (!threads.isEmpty()) {
      return;
    }
    failure = null;
    stopped = new CountDownLatch(1);
    for (int i = 0; i < concurrency; i++) {
      Thread thread = new Thread(this::runUntilStopped, listenerId + "-courier-" + i);
      threads.add(thread);
      thread.start();
    }
  }

  /**
   * Runs one consumer until the container stops. A consumer that ends with an error is closed and
   * replaced by a new one after a back-off (1 s, doubling to 10 s), as a restarted worker would be;
   * a setting no retry fixes ends it, and the health says why.
   */
  private void runUntilStopped() {
    Duration wait = FIRST_WAIT;
    while (true) {
      RetryingConsumer<Object, Object> consumer;
      synchronized (this) {
        if (stopped.getCount() == 0) {
          return;
        }
        consumer = consumers.apply(this);
        running.add(consumer);
      }
      try {
        consumer.run();
        return; // closed by stop()
      } catch (ConfigException e) {
        // The main topic is missing, or the principal may not create the ladder's topics.
        failure = e.getMessage();
        LOG.error(
            "listener {}: Courier's retry ladder cannot start: {}", listenerId, e.getMessage());
        return;
      } catch (RuntimeException e) {
        LOG.warn(
            "listener {}: its consumer failed ({}); a new one in {}",
            listenerId,
            e.toString(),
            wait);
        synchronized (this) {
          running.remove(consumer);
        }
        consumer.close();
        if (!pause(wait)) {
          return;
        }
        wait =
            wait.multipliedBy(2).compareTo(LONGEST_WAIT) > 0 ? LONGEST_WAIT : wait.multipliedBy(2);
      }
    }
  }

  /** Waits between attempts to start; false once the container stops. */
  private boolean pause(Duration wait) {
    try {
      return !stopped.await(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  @Override
  public void stop() {
    List<Thread> stopping;
    synchronized (this) {
      stopped.countDown();
      running.forEach(RetryingConsumer::close);
      stopping = new ArrayList<>(threads);
      threads.clear();
    }
    for (Thread thread : stopping) {
      try {
        thread.join(config.shutdownTimeout().plusSeconds(30).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } finally {
        thread.interrupt(); // only if it outlived its shutdown timeout and the grace above
      }
    }
    synchronized (this) {
      running.clear();
    }
  }

  @Override
  public synchronized boolean isRunning() {
    return !threads.isEmpty();
  }

  @Override
  public int getPhase() {
    // Spring Kafka's registry insists that its containers share one phase.
    return AbstractMessageListenerContainer.DEFAULT_PHASE;
  }

  @Override
  public boolean isAutoStartup() {
    return autoStartup;
  }

  @Override
  public void setAutoStartup(boolean autoStartup) {
    this.autoStartup = autoStartup;
  }

  @Override
  public String getListenerId() {
    return listenerId;
  }

  @Override
  public String getGroupId() {
    return config.group();
  }

  /** The main topic ({@code retry.topic}). */
  public String topic() {
    return config.topic();
  }

  /** Its group's ladder on the topic: tiers, DLT ({@code <topic>.<group>.dlt}). */
  public RetryTopics topics() {
    return config.topics();
  }

  /** The counts of its consumers since they started, summed. */
  public synchronized RetryProgress progress() {
    long calls = 0, succeeded = 0, retried = 0, deadLettered = 0, budgetWaits = 0;
    for (RetryingConsumer<Object, Object> consumer : running) {
      RetryProgress p = consumer.progress();
      calls += p.calls();
      succeeded += p.succeeded();
      retried += p.retried();
      deadLettered += p.deadLettered();
      budgetWaits += p.budgetWaits();
    }
    return new RetryProgress(calls, succeeded, retried, deadLettered, budgetWaits);
  }

  /** Records in its DLT as its consumers last counted them (-1 until one has). */
  public synchronized long dltDepth() {
    long depth = -1;
    for (RetryingConsumer<Object, Object> consumer : running) {
      depth = Math.max(depth, consumer.dltDepth());
    }
    return depth;
  }

  /**
   * When {@link #dltDepth()} was counted: the oldest count of its consumers (each counts every 30
   * s), empty until every one has counted.
   */
  public synchronized Optional<Instant> dltDepthCountedAt() {
    Instant oldest = null;
    for (RetryingConsumer<Object, Object> consumer : running) {
      Optional<Instant> at = consumer.dltDepthCountedAt();
      if (at.isEmpty()) {
        return Optional.empty();
      }
      oldest = oldest == null || at.get().isBefore(oldest) ? at.get() : oldest;
    }
    return Optional.ofNullable(oldest);
  }

  /** Why it cannot do its work now (it failed to start, or a consumer says why), if it cannot. */
  public synchronized Optional<String> problem() {
    if (failure != null) {
      return Optional.of(failure);
    }
    for (RetryingConsumer<Object, Object> consumer : running) {
      Optional<String> problem = consumer.problem();
      if (problem.isPresent()) {
        return problem;
      }
    }
    return Optional.empty();
  }

  /** Whether it failed for good (a setting no retry fixes). */
  public boolean failed() {
    return failure != null;
  }

  @Override
  public Map<String, Map<MetricName, ? extends Metric>> metrics() {
    return Map.of(); // Courier's meters are in the MeterRegistry
  }
}
