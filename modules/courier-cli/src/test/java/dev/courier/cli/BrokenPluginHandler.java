package dev.courier.cli;

import dev.courier.retry.RecordHandler;
import org.apache.kafka.clients.consumer.ConsumerRecord;

/** A handler plugin whose second record hits a broken classpath, as a badly packaged jar would. */
public final class BrokenPluginHandler implements RecordHandler<byte[], byte[]> {

  @Override
  public void handle(ConsumerRecord<byte[], byte[]> record) {
    if (record.offset() == 1) {
      throw new NoClassDefFoundError("com/acme/billing/Invoice");
    }
  }
}
