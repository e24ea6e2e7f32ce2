-- Operation keys a consumer has applied, written in the same transaction as the effect.
CREATE TABLE IF NOT EXISTS courier_idempotency_keys (
  consumer       text        NOT NULL,
  operation_key  text        NOT NULL,
  fingerprint    bytea       NOT NULL,
  topic          text,
  partition_id   integer,
  record_offset  bigint,
  processed_at   timestamptz NOT NULL,
  PRIMARY KEY (consumer, operation_key)
);
CREATE INDEX IF NOT EXISTS courier_idempotency_keys_age
  ON courier_idempotency_keys (consumer, processed_at);

-- Records refused as permanent errors (key reused with another payload, no key), for audit.
CREATE TABLE IF NOT EXISTS courier_idempotency_rejections (
  id                   bigserial   PRIMARY KEY,
  consumer             text        NOT NULL,
  operation_key        text,
  reason               text        NOT NULL,
  detail               text        NOT NULL,
  stored_fingerprint   bytea,
  received_fingerprint bytea,
  topic                text,
  partition_id         integer,
  record_offset        bigint,
  rejected_at          timestamptz NOT NULL
);

-- External effects: who holds the right to call, until when, and what came of it.
CREATE TABLE IF NOT EXISTS courier_effect_ledger (
  effect_key     text        PRIMARY KEY,
  status         text        NOT NULL
                 CHECK (status IN ('IN_PROGRESS', 'RELEASED', 'COMPLETED', 'UNKNOWN')),
  owner          text,
  lease_token    uuid,
  lease_until    timestamptz,
  attempts       integer     NOT NULL,
  result         text,
  outcome_reason text,
  created_at     timestamptz NOT NULL,
  updated_at     timestamptz NOT NULL,
  completed_at   timestamptz
);
CREATE INDEX IF NOT EXISTS courier_effect_ledger_unknown
  ON courier_effect_ledger (status) WHERE status = 'UNKNOWN';
