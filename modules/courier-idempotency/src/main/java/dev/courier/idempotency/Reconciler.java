package dev.courier.idempotency;

/**
 * Decides whether an effect whose outcome was ambiguous (a timeout) actually happened, usually by
 * asking the downstream system by idempotency key.
 */
@FunctionalInterface
public interface Reconciler {

  /** The verdict on one UNKNOWN effect. */
  sealed interface Verdict permits Happened, DidNotHappen, StillUnknown {}

  /** It happened: store the result and never call again. */
  record Happened(String result) implements Verdict {}

  /** It did not happen: the effect may be claimed and performed again. */
  record DidNotHappen() implements Verdict {}

  /** Cannot tell yet: ask again on the next reconciliation. */
  record StillUnknown() implements Verdict {}

  Verdict reconcile(String key, int attempts, String reason) throws Exception;
}
