package dev.courier.cli;

import org.junit.jupiter.api.Test;

/** docs/trace-attributes.md lists every span and attribute CourierTracing declares. */
class TracingReferenceTest {

  @Test
  void theReferenceIsCurrent() throws Exception {
    GeneratedDoc.assertCurrent(
        "trace-attributes.md",
        TracingReference.markdown(),
        TracingReferenceTest.class.getSimpleName());
  }
}
