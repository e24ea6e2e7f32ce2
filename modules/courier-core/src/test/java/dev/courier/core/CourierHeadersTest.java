package dev.courier.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class CourierHeadersTest {

  @Test
  void everyHeaderConstantIsDocumentedOnce() throws IllegalAccessException {
    List<String> constants = new ArrayList<>();
    for (Field f : CourierHeaders.class.getDeclaredFields()) {
      int m = f.getModifiers();
      if (Modifier.isPublic(m) && Modifier.isStatic(m) && f.getType() == String.class) {
        constants.add((String) f.get(null));
      }
    }
    assertThat(CourierHeaders.ALL.stream().map(CourierHeaders.Spec::name).toList())
        .containsExactlyInAnyOrderElementsOf(constants)
        .doesNotHaveDuplicates();
  }

  @Test
  void theOperationKeyIsTheLaddersCopyElseTheConfiguredHeader() {
    RecordHeaders headers = new RecordHeaders();
    assertThat(CourierHeaders.operationKey(headers, CourierHeaders.ID)).isEmpty();
    headers.add(CourierHeaders.ID, "event-1".getBytes(StandardCharsets.UTF_8));
    assertThat(CourierHeaders.operationKey(headers, CourierHeaders.ID)).contains(bytes("event-1"));
    headers.add(CourierHeaders.OPERATION_KEY, new byte[0]); // empty is no key
    assertThat(CourierHeaders.operationKey(headers, CourierHeaders.ID)).contains(bytes("event-1"));
    headers.add(CourierHeaders.OPERATION_KEY, bytes("op-7"));
    assertThat(CourierHeaders.operationKey(headers, CourierHeaders.ID)).contains(bytes("op-7"));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
