-- Video jobs. An unsettled job holds `hold` credits at its key and
-- account; their actors count it as reserved when they load. The whole job is
-- kept as JSON in `data`; the columns are what queries select on.
CREATE TABLE video_jobs (
    id TEXT PRIMARY KEY,
    account_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    idempotency_key TEXT,
    state TEXT NOT NULL,
    hold BIGINT NOT NULL,
    settled BOOLEAN NOT NULL,
    expires_at BIGINT,
    data TEXT NOT NULL
);
CREATE UNIQUE INDEX video_jobs_idempotency ON video_jobs (account_id, idempotency_key);
CREATE INDEX video_jobs_account ON video_jobs (account_id, id);
CREATE INDEX video_jobs_unsettled ON video_jobs (settled, account_id);
CREATE INDEX video_jobs_expiry ON video_jobs (state, expires_at);
