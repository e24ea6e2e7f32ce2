package dev.courier.outbox.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * The phases of one start (or restart) of a relay, from its first check to its first batch relayed,
 * each with the time it took. A start that keeps consumers waiting for seconds says in one line
 * where those seconds went: checks, leadership, the stored position, the slot, Debezium's engine,
 * the first change. Marked from the relay's thread and, for the last phase, the engine's.
 */
public final class StartPhases {

  /** One phase and how long it took. */
  public record Phase(String name, Duration took) {}

  private final LongSupplier nanoTime;
  private final long began;
  private final List<Phase> phases = new ArrayList<>();
  private long last;
  private boolean finished;

  private StartPhases(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
    this.began = nanoTime.getAsLong();
    this.last = began;
  }

  /** A start beginning now. */
  public static StartPhases begin() {
    return begin(System::nanoTime);
  }

  /** A start beginning now on the given monotonic clock (nanoseconds). */
  public static StartPhases begin(LongSupplier nanoTime) {
    return new StartPhases(nanoTime);
  }

  /** Ends the phase running since the last mark; marks after the finish are ignored. */
  public synchronized void mark(String phase) {
    if (finished) {
      return;
    }
    long now = nanoTime.getAsLong();
    phases.add(new Phase(phase, Duration.ofNanos(now - last)));
    last = now;
  }

  /**
   * Ends the last phase and the start; only the first call finishes it.
   *
   * @return the whole start's duration, or empty when it was finished already
   */
  public synchronized Optional<Duration> finish(String phase) {
    if (finished) {
      return Optional.empty();
    }
    mark(phase);
    finished = true;
    return Optional.of(Duration.ofNanos(last - began));
  }

  public synchronized List<Phase> phases() {
    return List.copyOf(phases);
  }

  /** E.g. {@code 2,310 ms after the start (checks 412 ms, stored position 640 ms, ...)}. */
  public synchronized String describe() {
    StringBuilder out =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "%,d ms after the start (",
                TimeUnit.NANOSECONDS.toMillis(last - began)));
    for (int i = 0; i < phases.size(); i++) {
      Phase p = phases.get(i);
      out.append(i == 0 ? "" : ", ")
          .append(p.name())
          .append(String.format(Locale.ROOT, " %,d ms", p.took().toMillis()));
    }
    return out.append(')').toString();
  }
}
