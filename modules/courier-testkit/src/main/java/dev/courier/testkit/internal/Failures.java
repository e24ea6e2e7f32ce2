package dev.courier.testkit.internal;

/** Words for a failure that name its root cause, which is usually the useful part. */
final class Failures {

  private Failures() {}

  static String describe(Throwable e) {
    Throwable root = e;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    String message = e.getMessage() == null ? e.toString() : e.getMessage();
    return root == e ? message : message + " (cause: " + root + ")";
  }
}
