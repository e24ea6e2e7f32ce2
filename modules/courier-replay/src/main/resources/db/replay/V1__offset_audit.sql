-- Append-only record of every executed offset operation (resets, undos, Streams resets).
CREATE TABLE IF NOT EXISTS courier_offset_audit (
  id         bigserial PRIMARY KEY,
  at         timestamptz NOT NULL,
  actor      text        NOT NULL CHECK (actor <> ''),
  reason     text        NOT NULL CHECK (reason <> ''),
  group_id   text        NOT NULL,
  action     text        NOT NULL,
  target     text        NOT NULL,
  offsets    jsonb       NOT NULL,
  undo_of    bigint      REFERENCES courier_offset_audit (id),
  undo_file  text,
  outcome    text        NOT NULL DEFAULT 'pending'
);
CREATE INDEX IF NOT EXISTS courier_offset_audit_group ON courier_offset_audit (group_id, at DESC);
