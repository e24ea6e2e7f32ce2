package dev.courier.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class OffsetCsvTest {

  @Test
  void writesAndReadsKafkasExportFormat() {
    Map<TopicPartition, Long> offsets =
        Map.of(new TopicPartition("orders", 1), 7L, new TopicPartition("orders", 0), 3L);
    String csv = OffsetCsv.write(offsets);
    assertThat(csv).isEqualTo("orders,0,3\norders,1,7\n");
    assertThat(OffsetCsv.read(csv, "billing")).isEqualTo(offsets);
  }

  @Test
  void readsTheMultiGroupFormatForOneGroup() {
    String csv = "billing,orders,0,3\nanalytics,orders,0,9\n";
    assertThat(OffsetCsv.read(csv, "analytics"))
        .containsExactly(Map.entry(new TopicPartition("orders", 0), 9L));
  }

  @Test
  void namesTheBadLine() {
    assertThatThrownBy(() -> OffsetCsv.read("orders,0,3\norders,x,4\n", "g"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("line 2")
        .hasMessageContaining("orders,x,4");
  }
}
