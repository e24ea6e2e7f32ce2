-- The outbox: column names are Debezium EventRouter's defaults (id, aggregatetype, aggregateid,
-- type, payload), plus the content type, extra headers and an optional business deadline.
CREATE TABLE IF NOT EXISTS courier_outbox (
  id            uuid         PRIMARY KEY,
  aggregatetype varchar(255) NOT NULL,
  aggregateid   varchar(255),
  type          varchar(255) NOT NULL,
  payload       bytea,
  content_type  varchar(100) NOT NULL,
  headers       jsonb,
  deadline      timestamptz,
  created_at    timestamptz  NOT NULL DEFAULT now()
);

-- Written by the relay's heartbeat so an idle outbox does not pin WAL behind the slot.
CREATE TABLE IF NOT EXISTS courier_outbox_heartbeat (
  id      integer     PRIMARY KEY,
  beat_at timestamptz NOT NULL
);
