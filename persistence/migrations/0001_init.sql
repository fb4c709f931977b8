-- 0001_init: the first schema. Accepted as is by SQLite, PostgreSQL and CockroachDB.
-- Instants are unix microseconds (0 = none); decimals are TEXT; JSON is TEXT.
-- No semicolon may appear inside a statement: the runner splits on them.

CREATE TABLE IF NOT EXISTS accounts (
    id         TEXT   NOT NULL PRIMARY KEY,
    email      TEXT   NOT NULL UNIQUE,
    created_at BIGINT NOT NULL
);

-- One row per account, created with it. epoch fences stale activations.
CREATE TABLE IF NOT EXISTS balances (
    account_id         TEXT   NOT NULL PRIMARY KEY REFERENCES accounts (id),
    package_credits    BIGINT NOT NULL DEFAULT 0,
    package_expires_at BIGINT NOT NULL DEFAULT 0,
    bought_credits     BIGINT NOT NULL DEFAULT 0,
    epoch              BIGINT NOT NULL DEFAULT 0
);

-- API keys: only the hash of the secret is stored. spend_limit NULL = no ceiling.
CREATE TABLE IF NOT EXISTS api_keys (
    id          TEXT   NOT NULL PRIMARY KEY,
    account_id  TEXT   NOT NULL REFERENCES accounts (id),
    name        TEXT   NOT NULL,
    hash        TEXT   NOT NULL UNIQUE,
    label       TEXT   NOT NULL,
    spend_limit BIGINT NULL,
    limit_reset TEXT   NOT NULL,
    expires_at  BIGINT NULL,
    revoked_at  BIGINT NULL,
    created_at  BIGINT NOT NULL
);

CREATE INDEX IF NOT EXISTS api_keys_by_account ON api_keys (account_id, created_at);

-- The ledger: append-only, ids unique. key_id is '' when no key was involved.
CREATE TABLE IF NOT EXISTS ledger_entries (
    id                 TEXT   NOT NULL PRIMARY KEY,
    account_id         TEXT   NOT NULL REFERENCES accounts (id),
    key_id             TEXT   NOT NULL,
    kind               TEXT   NOT NULL,
    package_delta      BIGINT NOT NULL,
    bought_delta       BIGINT NOT NULL,
    package_expires_at BIGINT NOT NULL,
    epoch              BIGINT NOT NULL,
    created_at         BIGINT NOT NULL
);

CREATE INDEX IF NOT EXISTS ledger_entries_by_account ON ledger_entries (account_id, created_at);
CREATE INDEX IF NOT EXISTS ledger_entries_by_key ON ledger_entries (key_id, kind, created_at);

-- One record per model call. attempts is a JSON array.
CREATE TABLE IF NOT EXISTS generations (
    id                TEXT    NOT NULL PRIMARY KEY,
    account_id        TEXT    NOT NULL,
    key_id            TEXT    NOT NULL,
    model             TEXT    NOT NULL,
    upstream          TEXT    NOT NULL,
    attempts          TEXT    NOT NULL,
    streamed          BOOLEAN NOT NULL,
    prompt_tokens     BIGINT  NOT NULL,
    completion_tokens BIGINT  NOT NULL,
    credits           BIGINT  NOT NULL,
    latency_ms        BIGINT  NOT NULL,
    status            TEXT    NOT NULL,
    finish_reason     TEXT    NOT NULL,
    created_at        BIGINT  NOT NULL
);

CREATE INDEX IF NOT EXISTS generations_by_account ON generations (account_id, created_at);

-- The operator's money settings: a single row with id 1.
CREATE TABLE IF NOT EXISTS settings (
    id         BIGINT NOT NULL PRIMARY KEY,
    rate       TEXT   NOT NULL,
    k          TEXT   NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE IF NOT EXISTS plans (
    id              TEXT   NOT NULL PRIMARY KEY,
    name            TEXT   NOT NULL,
    price_rubles    TEXT   NOT NULL,
    package_credits BIGINT NOT NULL,
    period          TEXT   NOT NULL
);

-- Operator overrides of catalog models: the whole shlyuz.Model as JSON.
CREATE TABLE IF NOT EXISTS model_overrides (
    id         TEXT   NOT NULL PRIMARY KEY,
    model      TEXT   NOT NULL,
    updated_at BIGINT NOT NULL
);
