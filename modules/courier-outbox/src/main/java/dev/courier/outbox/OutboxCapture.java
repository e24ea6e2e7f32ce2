package dev.courier.outbox;

import java.util.Objects;

/**
 * The replication slot and publication a relay reads an outbox table through. They must exist
 * before the first event commits: PostgreSQL decodes a change for a slot only if the slot existed
 * when the change was written, and publishes it only through a publication that held the table
 * then. An event committed before either exists is never published. {@link
 * OutboxSchema#prepareCapture} makes them (the relay does at every start, before it streams), and
 * the {@link OutboxWriter} refuses to write ({@link OutboxNotCapturedException}) while they are
 * missing.
 *
 * @param slot the slot's name ({@code outbox.slot.name}); with shards, shard {@code i > 0} of
 *     several uses {@code <slot>_<i>}, as its relay does
 * @param publication the publication's name ({@code outbox.publication.name}), suffixed likewise
 * @param failover whether the slot is a failover slot ({@code outbox.slot.failover}, PostgreSQL
 *     17+)
 */
public record OutboxCapture(String slot, String publication, boolean failover) {

  /** The relay's defaults: slot {@code courier_outbox}, publication {@code courier_outbox_pub}. */
  public static final OutboxCapture DEFAULT =
      new OutboxCapture("courier_outbox", "courier_outbox_pub", false);

  public OutboxCapture {
    Objects.requireNonNull(slot, "slot");
    Objects.requireNonNull(publication, "publication");
  }

  /** What a relay with these settings reads through (its shard's names). */
  public static OutboxCapture of(OutboxRelayConfig config) {
    return new OutboxCapture(
        config.getString(OutboxRelayConfig.SLOT_NAME),
        config.getString(OutboxRelayConfig.PUBLICATION_NAME),
        config.getBoolean(OutboxRelayConfig.SLOT_FAILOVER));
  }

  /** Shard {@code index} of {@code count}: the names its relay uses. */
  public OutboxCapture shard(int index, int count) {
    return count <= 1
        ? this
        : new OutboxCapture(slot + "_" + index, publication + "_" + index, failover);
  }
}
