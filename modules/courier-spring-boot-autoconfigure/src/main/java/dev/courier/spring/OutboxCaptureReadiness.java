package dev.courier.spring;

import dev.courier.outbox.OutboxCapture;
import dev.courier.outbox.OutboxSchema;
import dev.courier.outbox.OutboxShards;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.boot.availability.AvailabilityChangeEvent;
import org.springframework.boot.availability.ReadinessState;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.ApplicationEventPublisherAware;
import org.springframework.context.ApplicationListener;

/**
 * Keeps the application's readiness ({@code /actuator/health/readiness}) at {@code
 * REFUSING_TRAFFIC} while no replication slot and publication capture the outbox: an event
 * committed then would never be published (and the writer refuses it). On a first deploy the relay
 * makes them at its start, or the starter's schema step does with a role that may; once they exist
 * the application accepts traffic. Checked when Spring Boot declares it ready, then every second
 * until captured.
 */
public final class OutboxCaptureReadiness
    implements ApplicationListener<AvailabilityChangeEvent<ReadinessState>>,
        ApplicationEventPublisherAware,
        DisposableBean {

  private static final Logger LOG = LoggerFactory.getLogger(OutboxCaptureReadiness.class);

  private final DataSource dataSource;
  private final OutboxShards shards;
  private final OutboxCapture capture;
  private final ScheduledExecutorService checks =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "courier-outbox-capture");
            t.setDaemon(true);
            return t;
          });
  private ApplicationEventPublisher events;
  private volatile boolean waiting;

  public OutboxCaptureReadiness(DataSource dataSource, OutboxShards shards, OutboxCapture capture) {
    this.dataSource = dataSource;
    this.shards = shards;
    this.capture = capture;
  }

  @Override
  public void setApplicationEventPublisher(ApplicationEventPublisher events) {
    this.events = events;
  }

  /** Why an event written now would not be published, or empty. */
  public Optional<String> missing() {
    try {
      return OutboxSchema.uncaptured(dataSource, shards, capture);
    } catch (IllegalStateException e) {
      return Optional.of(e.getMessage() + ": " + e.getCause());
    }
  }

  @Override
  public synchronized void onApplicationEvent(AvailabilityChangeEvent<ReadinessState> event) {
    if (event.getState() != ReadinessState.ACCEPTING_TRAFFIC || waiting) {
      return;
    }
    Optional<String> missing = missing();
    if (missing.isEmpty()) {
      return;
    }
    LOG.warn(
        "not ready: {}, so an event written now would never be published; ready once the relay"
            + " has made its slot and publication",
        missing.get());
    waiting = true;
    AvailabilityChangeEvent.publish(events, this, ReadinessState.REFUSING_TRAFFIC);
    checks.scheduleWithFixedDelay(this::check, 1, 1, TimeUnit.SECONDS);
  }

  private void check() {
    if (missing().isPresent()) {
      return;
    }
    synchronized (this) {
      if (!waiting) {
        return;
      }
      waiting = false;
    }
    LOG.info("the outbox is captured: ready");
    AvailabilityChangeEvent.publish(events, this, ReadinessState.ACCEPTING_TRAFFIC);
    checks.shutdown();
  }

  @Override
  public void destroy() {
    checks.shutdownNow();
  }
}
