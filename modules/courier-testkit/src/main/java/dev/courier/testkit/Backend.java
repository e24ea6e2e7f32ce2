package dev.courier.testkit;

/** Where the test infrastructure runs. */
public enum Backend {
  /** Kafka's own broker code in this JVM and PostgreSQL from Maven Central binaries. */
  EMBEDDED("embedded"),
  /** Official container images started through Testcontainers on a Docker engine. */
  TESTCONTAINERS("testcontainers"),
  /** A cluster and a PostgreSQL server someone else runs (benchmarks against real hardware). */
  EXTERNAL("external");

  private final String id;

  Backend(String id) {
    this.id = id;
  }

  /** The value used in {@code -Dcourier.infra}. */
  public String id() {
    return id;
  }
}
