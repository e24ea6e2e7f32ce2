package dev.courier.backpressure;

/** A unit of work asking to be admitted, with its size in bytes (0 when unknown). */
public record Work(String description, long bytes) {
  public Work {
    if (bytes < 0) {
      throw new IllegalArgumentException("bytes must be >= 0, got " + bytes);
    }
    description = description == null ? "" : description;
  }

  public static Work ofBytes(long bytes) {
    return new Work("", bytes);
  }
}
