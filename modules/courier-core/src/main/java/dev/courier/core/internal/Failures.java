package dev.courier.core.internal;

/** Words for a failure that name its root cause, which is usually the useful part. */
public final class Failures {

  private Failures() {}

  /** The failure's message, and its root cause when that is another exception. */
  public static String describe(Throwable e) {
    Throwable root = rootCause(e);
    String message = e.getMessage() == null ? e.toString() : e.getMessage();
    return root == e ? message : message + " (cause: " + root + ")";
  }

  /** The innermost cause of a failure (the failure itself when it has none). */
  public static Throwable rootCause(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root;
  }
}
