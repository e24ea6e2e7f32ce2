-- Operator actions on dead-letter topics: replays and parkings, who, why, which records, result.
CREATE TABLE IF NOT EXISTS courier_dlt_audit (
  id           bigserial PRIMARY KEY,
  at           timestamptz NOT NULL,
  actor        text        NOT NULL CHECK (actor <> ''),
  reason       text        NOT NULL CHECK (reason <> ''),
  action       text        NOT NULL,
  dlt_topic    text        NOT NULL,
  target_topic text,
  records      jsonb       NOT NULL,
  outcome      text        NOT NULL DEFAULT 'pending'
);
-- Records that must never be replayed.
CREATE TABLE IF NOT EXISTS courier_dlt_parked (
  dlt_topic  text        NOT NULL,
  partition  integer     NOT NULL,
  "offset"   bigint      NOT NULL,
  at         timestamptz NOT NULL,
  actor      text        NOT NULL,
  reason     text        NOT NULL,
  PRIMARY KEY (dlt_topic, partition, "offset")
);
