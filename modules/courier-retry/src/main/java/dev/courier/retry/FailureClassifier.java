package dev.courier.retry;

import dev.courier.core.PermanentError;
import dev.courier.core.TransientAware;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.sql.SQLException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.apache.kafka.common.errors.RecordDeserializationException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.SerializationException;

/**
 * Maps a failure to TRANSIENT or PERMANENT by walking its cause chain: the user's rules first, then
 * Courier's defaults, then the configured default class. Defaults: {@link PermanentError} (a reused
 * or missing operation key), deserialization and schema errors, and validation errors ({@link
 * IllegalArgumentException}) are PERMANENT; timeouts, lost connections, Kafka's retriable errors
 * and transient SQL states (connection {@code 08}, rollback {@code 40}, resources {@code 53},
 * shutdown {@code 57P}) are TRANSIENT.
 */
public final class FailureClassifier {

  private record Rule(String name, Predicate<Throwable> matches, FailureClass failureClass) {}

  private final List<Rule> rules;
  private final FailureClass fallback;

  private FailureClassifier(List<Rule> rules, FailureClass fallback) {
    this.rules = List.copyOf(rules);
    this.fallback = fallback;
  }

  public static FailureClassifier defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public Classification classify(Throwable failure) {
    // Rules in order, each over the whole chain: a user rule on a cause beats a default on the top.
    for (Rule rule : rules) {
      Set<Throwable> seen = new HashSet<>();
      for (Throwable t = failure; t != null && seen.add(t); t = t.getCause()) {
        if (rule.matches().test(t)) {
          return new Classification(rule.failureClass(), rule.name(), t);
        }
      }
    }
    return new Classification(fallback, "default " + fallback, failure);
  }

  /** The rules in words, for the retry contract. */
  public String describe() {
    return rules.stream()
            .map(r -> r.name() + " -> " + r.failureClass())
            .collect(Collectors.joining("; "))
        + "; otherwise "
        + fallback;
  }

  /** User rules (checked before the defaults) and the class of unknown failures. */
  public static final class Builder {
    private final List<Rule> user = new ArrayList<>();
    private FailureClass fallback = FailureClass.TRANSIENT;

    private Builder() {}

    public Builder permanent(Class<? extends Throwable> type) {
      user.add(new Rule(type.getSimpleName(), type::isInstance, FailureClass.PERMANENT));
      return this;
    }

    public Builder transientFailure(Class<? extends Throwable> type) {
      user.add(new Rule(type.getSimpleName(), type::isInstance, FailureClass.TRANSIENT));
      return this;
    }

    public Builder rule(String name, Predicate<Throwable> matches, FailureClass failureClass) {
      user.add(new Rule(name, Objects.requireNonNull(matches), failureClass));
      return this;
    }

    /** The class of failures no rule matches (TRANSIENT unless set). */
    public Builder otherwise(FailureClass failureClass) {
      this.fallback = Objects.requireNonNull(failureClass);
      return this;
    }

    public FailureClassifier build() {
      List<Rule> all = new ArrayList<>(user);
      all.add(new Rule("PermanentError", t -> t instanceof PermanentError, FailureClass.PERMANENT));
      // A registry outage is not the record's fault (AvroDeserializationException says so): retry.
      all.add(
          new Rule(
              "TransientAware",
              t -> t instanceof TransientAware a && a.isTransient(),
              FailureClass.TRANSIENT));
      all.add(
          new Rule(
              "deserialization",
              t ->
                  t instanceof RecordDeserializationException
                      || t instanceof SerializationException,
              FailureClass.PERMANENT));
      all.add(
          new Rule(
              "validation", t -> t instanceof IllegalArgumentException, FailureClass.PERMANENT));
      all.add(
          new Rule(
              "timeout or connection",
              t ->
                  t instanceof java.util.concurrent.TimeoutException
                      || t instanceof SocketTimeoutException
                      || t instanceof ConnectException
                      || t instanceof RetriableException,
              FailureClass.TRANSIENT));
      all.add(
          new Rule(
              "transient SQL state",
              t ->
                  t instanceof SQLTransientException
                      || t instanceof SQLRecoverableException
                      || (t instanceof SQLException s && transientState(s.getSQLState())),
              FailureClass.TRANSIENT));
      return new FailureClassifier(all, fallback);
    }

    private static boolean transientState(String state) {
      return state != null
          && (state.startsWith("08")
              || state.startsWith("40")
              || state.startsWith("53")
              || state.startsWith("57P"));
    }
  }
}
