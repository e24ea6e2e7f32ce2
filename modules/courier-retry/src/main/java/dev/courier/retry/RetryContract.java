package dev.courier.retry;

import dev.courier.core.CourierHeaders;
import java.util.ArrayList;
import java.util.List;

/**
 * What a consumer promises about failures, printed at start and by {@code courier contract}: which
 * key deduplicates, what keeps order, how failures are classified, when retries stop, and who may
 * replay the DLT.
 */
public record RetryContract(
    String group,
    String topic,
    String operationKey,
    String orderingKey,
    String classification,
    int maxAttempts,
    String delays,
    String deadlineRule,
    String budget,
    String elapsedLimit,
    String deadLetterTopic,
    String replayAuthority) {

  /** The contract a consumer with these settings, classifier and budget keeps. */
  public static RetryContract of(
      RetryConfig config, FailureClassifier classifier, RetryBudget budget) {
    RetryPolicy policy = config.policy();
    RetryTopics topics = config.topics();
    List<String> delays = new ArrayList<>();
    for (int t = 1; t <= policy.tiers(); t++) {
      delays.add(topics.tier(t) + " up to " + policy.backOff().ceiling(t).toMillis() + " ms");
    }
    return new RetryContract(
        config.group(),
        config.topic(),
        "header '"
            + config.getString(RetryConfig.OPERATION_KEY_HEADER)
            + "' (copied to "
            + CourierHeaders.OPERATION_KEY
            + ")",
        config.getString(RetryConfig.ORDERING_KEY)
            + (config.ordering() == RetryOrdering.KEY
                ? " (retry.ordering=key: while a record of a key is in the ladder, the key's later"
                    + " records wait behind it; behind a dead letter they "
                    + (config.waitingOnDeadLetter() == WaitingOnDeadLetter.PARK
                        ? "follow it into the DLT)"
                        : "are released)")
                : " (retry.ordering=none: a retry keeps its partition; later records of the key"
                    + " do not wait)"),
        classifier.describe(),
        policy.maxAttempts(),
        policy.backOff() + (delays.isEmpty() ? "" : ": " + String.join(", ", delays)),
        "header '"
            + config.getString(RetryConfig.DEADLINE_HEADER)
            + "': expired records go to the DLT as 'expired' unexecuted; a"
            + " retry due after it stops as 'deadline'",
        budget.toString(),
        policy.maxElapsed().toString(),
        topics.deadLetter(),
        config.getString(RetryConfig.REPLAY_AUTHORITY));
  }

  public String render() {
    return String.join(
        System.lineSeparator(),
        "Retry contract of group " + group + " on " + topic,
        "  operation key:   " + operationKey,
        "  ordering key:    " + orderingKey,
        "  classification:  " + classification,
        "  attempts:        at most " + maxAttempts + " calls per record",
        "  delays:          " + delays,
        "  deadline:        " + deadlineRule,
        "  retry budget:    " + budget + " (when empty, due records wait at their tier)",
        "  elapsed limit:   " + elapsedLimit + " since the first failure",
        "  dead letters:    " + deadLetterTopic + " (key, value and headers kept byte for byte)",
        "  replay:          "
            + replayAuthority
            + ", audited, rate-limited, through the idempotent store");
  }
}
