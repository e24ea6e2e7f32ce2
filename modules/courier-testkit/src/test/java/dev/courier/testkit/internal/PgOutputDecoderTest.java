package dev.courier.testkit.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.courier.testkit.LogicalChange;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Message layouts from PostgreSQL's "Logical Replication Message Formats" (protocol 1). */
class PgOutputDecoderTest {

  private final PgOutputDecoder decoder = new PgOutputDecoder();

  @Test
  void insertAfterRelationBecomesAChange() throws IOException {
    assertThat(decoder.decode(begin())).isEmpty();
    assertThat(decoder.decode(relation(16384, "public", "outbox", "id", "payload"))).isEmpty();

    Map<String, String> expected = new LinkedHashMap<>();
    expected.put("id", "42");
    expected.put("payload", null);
    assertThat(decoder.decode(insert(16384, "42", null)))
        .contains(new LogicalChange("public.outbox", "INSERT", expected));
  }

  @Test
  void rowBeforeItsRelationIsAnError() {
    assertThatThrownBy(() -> decoder.decode(insert(99, "1", "x")))
        .hasMessageContaining("relation 99");
  }

  @Test
  void commitTimeIsReadFromCommitMessagesOnly() throws IOException {
    // 2026-12-01T10:00:00.123Z in microseconds since 2000-01-01.
    long micros =
        (Instant.parse("2026-12-01T10:00:00.123Z").toEpochMilli() - 946_684_800_000L) * 1000;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeByte('C');
    out.writeByte(0); // flags
    out.writeLong(0x16B3748L); // commit LSN
    out.writeLong(0x16B3778L); // end LSN
    out.writeLong(micros);

    assertThat(PgOutputDecoder.commitMillis(bytes.toByteArray()))
        .isEqualTo(Instant.parse("2026-12-01T10:00:00.123Z").toEpochMilli());
    assertThat(PgOutputDecoder.commitMillis(begin())).isEqualTo(-1);
  }

  private static byte[] begin() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeByte('B');
    out.writeLong(0x16B3748L); // final LSN
    out.writeLong(0L); // commit timestamp
    out.writeInt(740); // xid
    return bytes.toByteArray();
  }

  private static byte[] relation(int oid, String namespace, String table, String... columns)
      throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeByte('R');
    out.writeInt(oid);
    cString(out, namespace);
    cString(out, table);
    out.writeByte('d');
    out.writeShort(columns.length);
    for (String column : columns) {
      out.writeByte(0);
      cString(out, column);
      out.writeInt(25); // text
      out.writeInt(-1);
    }
    return bytes.toByteArray();
  }

  private static byte[] insert(int oid, String... values) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    DataOutputStream out = new DataOutputStream(bytes);
    out.writeByte('I');
    out.writeInt(oid);
    out.writeByte('N');
    out.writeShort(values.length);
    for (String value : values) {
      if (value == null) {
        out.writeByte('n');
      } else {
        byte[] text = value.getBytes(StandardCharsets.UTF_8);
        out.writeByte('t');
        out.writeInt(text.length);
        out.write(text);
      }
    }
    return bytes.toByteArray();
  }

  private static void cString(DataOutputStream out, String value) throws IOException {
    out.write(value.getBytes(StandardCharsets.UTF_8));
    out.writeByte(0);
  }
}
