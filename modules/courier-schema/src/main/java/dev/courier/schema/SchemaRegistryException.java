package dev.courier.schema;

/**
 * An error answered by a schema registry, or the failure to reach one. Carries the HTTP status and
 * Confluent's {@code error_code} (e.g. 40401) with the server's message.
 */
public class SchemaRegistryException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private final int status;
  private final int errorCode;

  public SchemaRegistryException(int status, int errorCode, String message) {
    super(message);
    this.status = status;
    this.errorCode = errorCode;
  }

  public SchemaRegistryException(int status, int errorCode, String message, Throwable cause) {
    super(message, cause);
    this.status = status;
    this.errorCode = errorCode;
  }

  /** HTTP status; 0 when no registry answered. */
  public int status() {
    return status;
  }

  /** Confluent's error code (40401, 409, 42201, 50001, ...); 0 when no registry answered. */
  public int errorCode() {
    return errorCode;
  }

  /**
   * Whether asking again may succeed (the registry was unreachable or failed on its side): callers
   * should treat such failures as transient, every other one as permanent.
   */
  public boolean retriable() {
    return status == 0 || status >= 500;
  }

  /** Maps a registry answer to the most specific exception type. */
  public static SchemaRegistryException of(int status, int errorCode, String message) {
    return switch (errorCode) {
      case 40401 -> new SubjectNotFoundException(status, errorCode, message);
      case 40402 -> new VersionNotFoundException(status, errorCode, message);
      case 40403 -> new SchemaNotFoundException(status, errorCode, message);
      case 409 -> new IncompatibleSchemaException(status, errorCode, message);
      case 42201, 42202, 42203 -> new InvalidSchemaException(status, errorCode, message);
      default ->
          status == 401 || status == 403
              ? new SchemaRegistryAuthenticationException(status, errorCode, message)
              : new SchemaRegistryException(status, errorCode, message);
    };
  }

  /** 40401: the subject does not exist. */
  public static class SubjectNotFoundException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    public SubjectNotFoundException(int status, int errorCode, String message) {
      super(status, errorCode, message);
    }
  }

  /** 40402: the subject has no such version. */
  public static class VersionNotFoundException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    public VersionNotFoundException(int status, int errorCode, String message) {
      super(status, errorCode, message);
    }
  }

  /** 40403: no schema with that id, or the schema is not registered under the subject. */
  public static class SchemaNotFoundException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    public SchemaNotFoundException(int status, int errorCode, String message) {
      super(status, errorCode, message);
    }
  }

  /** 409: the schema breaks the subject's compatibility level. */
  public static class IncompatibleSchemaException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    public IncompatibleSchemaException(int status, int errorCode, String message) {
      super(status, errorCode, message);
    }
  }

  /** 42201-42203: invalid schema, version or compatibility level. */
  public static class InvalidSchemaException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    public InvalidSchemaException(int status, int errorCode, String message) {
      super(status, errorCode, message);
    }
  }

  /** 401/403: credentials missing or refused. */
  public static class SchemaRegistryAuthenticationException extends SchemaRegistryException {
    private static final long serialVersionUID = 1L;

    public SchemaRegistryAuthenticationException(int status, int errorCode, String message) {
      super(status, errorCode, message);
    }
  }
}
