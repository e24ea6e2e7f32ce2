package dev.courier.cli;

import org.junit.jupiter.api.Test;

/** docs/headers.md lists every header CourierHeaders declares, as it declares it. */
class HeadersReferenceTest {

  @Test
  void theReferenceIsCurrent() throws Exception {
    GeneratedDoc.assertCurrent(
        "headers.md", HeadersReference.markdown(), HeadersReferenceTest.class.getSimpleName());
  }
}
