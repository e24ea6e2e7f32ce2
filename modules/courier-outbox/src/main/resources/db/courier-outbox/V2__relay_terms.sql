-- One row per leadership term of the relays sharing a slot. Every record a relay publishes carries
-- its term's incarnation in the courier.relay header; this table says which process held it.
CREATE TABLE IF NOT EXISTS courier_outbox_relay_terms (
  slot_name   text        NOT NULL,
  incarnation bigint      NOT NULL,
  holder      text        NOT NULL,
  started_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (slot_name, incarnation)
);
