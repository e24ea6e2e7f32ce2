package dev.courier.retry;

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

  public String render() {
    return String.join(
        System.lineSeparator(),
        "Retry contract of group " + group + " on " + topic,
        "  operation key:   " + operationKey,
        "  ordering key:    "
            + orderingKey
            + " (a retry keeps its partition; later records of the key do not wait)",
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
