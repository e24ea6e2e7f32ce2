-- Events an operator told the relay to dead-letter instead of publishing (courier outbox skip).
-- Under outbox.invalid.row.policy=fail a row Kafka refuses for good stops the relay, and deleting
-- the row does not help: the slot decodes its INSERT from the WAL again on every start. Naming
-- its event here does. Who, why and when stay as the audit of the skip.
CREATE TABLE IF NOT EXISTS courier_outbox_skips (
  event_id   uuid        PRIMARY KEY,
  actor      text        NOT NULL,
  reason     text        NOT NULL,
  skipped_at timestamptz NOT NULL DEFAULT now()
);
