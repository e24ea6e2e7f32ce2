package dev.courier.retry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.courier.core.CourierHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;

/** What `courier dlt list` and `show` print of a record's own text: shown, never run. */
class DltRecordTest {

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  @Test
  void escapeSequencesNewlinesAndBidiOverridesAreShownNotRun() {
    assertThat(DltRecord.text(utf8("paid\u001b[2J\u001b]0;owned\u0007")))
        .isEqualTo("paid\\u001b[2J\\u001b]0;owned\\u0007");
    assertThat(DltRecord.text(utf8("a\nFORGED LINE\r\tb")))
        .isEqualTo("a\\u000aFORGED LINE\\u000d\\u0009b");
    assertThat(DltRecord.text(utf8("invoice-\u202egpj.exe"))).isEqualTo("invoice-\\u202egpj.exe");
    assertThat(DltRecord.text(utf8("{\"note\":\"<script>alert(1)</script> ü €\"}")))
        .as("markup and non-ASCII text are text to a terminal, shown as they are")
        .isEqualTo("{\"note\":\"<script>alert(1)</script> ü €\"}");
    assertThat(DltRecord.text(new byte[] {(byte) 0xc3, 0x28})).isEqualTo("base64:wyg=");
  }

  @Test
  void aLetterWithoutAMessageRendersAsBefore() {
    DltRecord r =
        new DltRecord(
            "orders.g.dlt",
            0,
            1,
            null,
            null,
            List.of(),
            "orders",
            0,
            5,
            "forward-refused",
            "org.apache.kafka.common.errors.RecordTooLargeException",
            null,
            1,
            Instant.parse("2026-12-07T12:00:00Z"),
            Optional.empty());

    assertThat(r.render())
        .contains("record-key=-")
        .contains("operation-key=-")
        .endsWith("RecordTooLargeException: null");
  }

  @Test
  void aRenderedLineStaysOneLineWhateverTheRecordCarries() {
    DltRecord r =
        new DltRecord(
            "orders.g.dlt",
            0,
            7,
            utf8("acc-1\u001b[31m"),
            utf8("{}"),
            List.of(
                new RecordHeader(
                    CourierHeaders.TRACEPARENT, utf8("00-\u001b" + "a".repeat(31) + "-b-01"))),
            "orders",
            1,
            42,
            "permanent",
            "java.lang.IllegalArgumentException",
            "bad amount\n2026-12-07 INFO all fine",
            1,
            Instant.parse("2026-12-07T12:00:00Z"),
            Optional.of("op-1\u202e"));

    String line = r.render();

    assertThat(line).doesNotContain("\n").doesNotContain("\u001b").doesNotContain("\u202e");
    assertThat(line)
        .contains("operation-key=op-1\\u202e")
        .contains("record-key=acc-1\\u001b[31m")
        .contains("bad amount\\u000a2026-12-07 INFO all fine")
        .contains("trace=\\u001b" + "a".repeat(31));
  }
}
