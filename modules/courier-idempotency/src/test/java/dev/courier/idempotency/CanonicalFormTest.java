package dev.courier.idempotency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class CanonicalFormTest {

  @Test
  void jsonIgnoresKeyOrderAndWhitespaceButNotValues() {
    CanonicalForm<String> json = CanonicalForm.json();
    byte[] a = json.of("{\"b\":{\"y\":1,\"x\":[2,1]},\"a\":\"s\"}");
    byte[] b = json.of(" { \"a\" : \"s\", \"b\" : { \"x\" : [2, 1], \"y\" : 1 } } ");
    assertThat(new String(a, StandardCharsets.UTF_8))
        .isEqualTo("{\"a\":\"s\",\"b\":{\"x\":[2,1],\"y\":1}}");
    assertThat(a).isEqualTo(b);
    assertThat(json.of("{\"x\":[1,2]}")).isNotEqualTo(json.of("{\"x\":[2,1]}"));
    assertThatThrownBy(() -> json.of("{not json")).hasMessageContaining("payload is not JSON");
  }

  @Test
  void fingerprintsAreSha256() {
    assertThat(
            java.util.HexFormat.of()
                .formatHex(Fingerprints.sha256("abc".getBytes(StandardCharsets.UTF_8))))
        .isEqualTo("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  }

  @Test
  void otherTypesNeedAnExplicitCanonicalForm() {
    CanonicalForm<Object> raw = Fingerprints.rawOrText();
    assertThat(raw.of("x")).isEqualTo(new byte[] {'x'});
    assertThatThrownBy(() -> raw.of(42))
        .hasMessageContaining("java.lang.Integer need a CanonicalForm");
  }
}
