-- 0020_web: the web account area. Accepted by SQLite, PostgreSQL and CockroachDB.

-- A web login per account: an argon2id hash in PHC form; confirmed_at 0 = not yet.
CREATE TABLE IF NOT EXISTS web_logins (
    account_id    TEXT   NOT NULL PRIMARY KEY REFERENCES accounts (id),
    password_hash TEXT   NOT NULL,
    confirmed_at  BIGINT NOT NULL DEFAULT 0
);

-- Signed-in browsers: id is the SHA-256 of the cookie's secret.
CREATE TABLE IF NOT EXISTS web_sessions (
    id         TEXT   NOT NULL PRIMARY KEY,
    account_id TEXT   NOT NULL REFERENCES accounts (id),
    csrf       TEXT   NOT NULL,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);

CREATE INDEX IF NOT EXISTS web_sessions_by_account ON web_sessions (account_id);

-- Payments through the acquirer. external_id is the acquirer's id ('' until known).
CREATE TABLE IF NOT EXISTS payments (
    id           TEXT   NOT NULL PRIMARY KEY,
    external_id  TEXT   NOT NULL,
    account_id   TEXT   NOT NULL REFERENCES accounts (id),
    kind         TEXT   NOT NULL,
    plan_id      TEXT   NOT NULL,
    amount       TEXT   NOT NULL,
    credits      BIGINT NOT NULL,
    status       TEXT   NOT NULL,
    created_at   BIGINT NOT NULL,
    completed_at BIGINT NOT NULL DEFAULT 0
);

CREATE INDEX IF NOT EXISTS payments_by_external ON payments (external_id);
CREATE INDEX IF NOT EXISTS payments_by_account ON payments (account_id, created_at);
