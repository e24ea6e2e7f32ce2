-- The billing reference consumer's business tables.
CREATE TABLE IF NOT EXISTS billing_order (
  order_id   text PRIMARY KEY,
  account_id text           NOT NULL,
  total      numeric(18, 2) NOT NULL,
  status     text           NOT NULL
);
CREATE TABLE IF NOT EXISTS billing_account (
  account_id text PRIMARY KEY,
  paid_total numeric(18, 2) NOT NULL DEFAULT 0,
  payments   integer        NOT NULL DEFAULT 0
);
