-- 0022_web_conversations: the web chat's history, kept per account on the server.
-- Accepted by SQLite, PostgreSQL and CockroachDB. messages is a JSON array of {role, content}.
CREATE TABLE IF NOT EXISTS web_conversations (
    id         TEXT   NOT NULL PRIMARY KEY,
    account_id TEXT   NOT NULL REFERENCES accounts (id),
    title      TEXT   NOT NULL,
    model      TEXT   NOT NULL,
    messages   TEXT   NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE INDEX IF NOT EXISTS web_conversations_by_account ON web_conversations (account_id, updated_at);
