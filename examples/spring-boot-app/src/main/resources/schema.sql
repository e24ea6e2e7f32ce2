CREATE TABLE IF NOT EXISTS orders (id text PRIMARY KEY, account text NOT NULL, amount bigint NOT NULL);
CREATE TABLE IF NOT EXISTS balances (account text PRIMARY KEY, charged bigint NOT NULL);
