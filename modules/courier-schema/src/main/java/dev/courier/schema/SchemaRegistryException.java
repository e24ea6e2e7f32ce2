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

  /** Maps a registry answer to the most specific exception type (no request path known). */
  public static SchemaRegistryException of(int status, int errorCode, String message) {
    return of(status, errorCode, message, "");
  }

  /**
   * Maps a registry answer to the most specific exception type: by Confluent's {@code error_code}
   * when it is one, otherwise by the HTTP status and the request's path. Registries that speak
   * Confluent's API without its codes (Apicurio answers an incompatible schema with 409 and {@code
   * error_code} 0; proxies answer 401 or 403 with HTML) still give the same types.
   */
  public static SchemaRegistryException of(int status, int errorCode, String message, String path) {
    return switch (errorCode) {
      case 40401 -> new SubjectNotFoundException(status, errorCode, message);
      case 40402 -> new VersionNotFoundException(status, errorCode, message);
      case 40403 -> new SchemaNotFoundException(status, errorCode, message);
      case 409 -> new IncompatibleSchemaException(status, errorCode, message);
      case 42201, 42202, 42203 -> new InvalidSchemaException(status, errorCode, message);
      default ->
          switch (status) {
            case 401, 403 -> new SchemaRegistryAuthenticationException(status, errorCode, message);
            case 409 -> new IncompatibleSchemaException(status, errorCode, message);
            case 422 -> new InvalidSchemaException(status, errorCode, message);
            case 404 -> notFound(status, errorCode, message, path);
            default -> new SchemaRegistryException(status, errorCode, message);
          };
    };
  }

  /** A 404 without a specific code: what was not found is the last thing the path names. */
  private static SchemaRegistryException notFound(
      int status, int errorCode, String message, String path) {
    String p = path.indexOf('?') < 0 ? path : path.substring(0, path.indexOf('?'));
    String[] parts = p.replaceAll("^/+|/+$", "").split("/+");
    int at = parts[0].equals("compatibility") ? 1 : 0;
    if (parts.length >= at + 3 && parts[at].equals("schemas") && parts[at + 1].equals("ids")) {
      return new SchemaNotFoundException(status, errorCode, message);
    }
    if (parts.length >= at + 4
        && parts[at].equals("subjects")
        && parts[at + 2].equals("versions")) {
      return new VersionNotFoundException(status, errorCode, message);
    }
    if (parts.length >= at + 2 && (parts[at].equals("subjects") || parts[at].equals("config"))) {
      return new SubjectNotFoundException(status, errorCode, message);
    }
    return new SchemaRegistryException(status, errorCode, message);
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
