-- 0021_rate_changes: every change of the exchange rate: who, when, old and new.
CREATE TABLE IF NOT EXISTS rate_changes (
    id        TEXT   NOT NULL PRIMARY KEY,
    at        BIGINT NOT NULL,
    changed_by TEXT  NOT NULL,
    old_rate  TEXT   NOT NULL,
    new_rate  TEXT   NOT NULL
);

CREATE INDEX IF NOT EXISTS rate_changes_by_time ON rate_changes (at);
