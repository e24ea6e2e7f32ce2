package dev.courier.testkit;

/** The test infrastructure could not start; the message says why and what to change. */
public class InfraStartupException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public InfraStartupException(String message) {
    super(message);
  }

  public InfraStartupException(String message, Throwable cause) {
    super(message, cause);
  }
}
