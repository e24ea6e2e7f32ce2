package dev.courier.schema.internal;

/** An error answer of the in-memory registry, with Confluent's status, code and wording. */
final class RegistryError extends RuntimeException {
  private static final long serialVersionUID = 1L;

  final int status;
  final int code;

  private RegistryError(int status, int code, String message) {
    super(message);
    this.status = status;
    this.code = code;
  }

  static RegistryError subjectNotFound(String subject) {
    return new RegistryError(404, 40401, "Subject '" + subject + "' not found.");
  }

  static RegistryError versionNotFound(String version) {
    return new RegistryError(404, 40402, "Version " + version + " not found.");
  }

  static RegistryError schemaNotFound(String what) {
    return new RegistryError(404, 40403, what + " not found");
  }

  static RegistryError subjectLevelNotConfigured(String subject) {
    return new RegistryError(
        404,
        40408,
        "Subject '" + subject + "' does not have subject-level compatibility configured");
  }

  static RegistryError incompatible(String subject, java.util.List<String> details) {
    return new RegistryError(
        409,
        409,
        "Schema being registered is incompatible with an earlier schema for subject \""
            + subject
            + "\", details: "
            + details);
  }

  static RegistryError invalidSchema(String detail) {
    return new RegistryError(422, 42201, "Invalid schema: " + detail);
  }

  static RegistryError invalidVersion(String version) {
    return new RegistryError(
        422,
        42202,
        "The specified version '"
            + version
            + "' is not a valid version id. Allowed values are between [1, 2^31-1] and the string"
            + " \"latest\"");
  }

  static RegistryError invalidCompatibility(String level) {
    return new RegistryError(422, 42203, "Invalid compatibility level: " + level);
  }

  static RegistryError notFound(String path) {
    return new RegistryError(404, 404, "HTTP 404 Not Found: " + path);
  }

  static RegistryError unauthorized() {
    return new RegistryError(401, 40101, "Unauthorized");
  }

  static RegistryError injected(int status) {
    return new RegistryError(status, status * 100 + 1, "Injected failure (HTTP " + status + ")");
  }
}
