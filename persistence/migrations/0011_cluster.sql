-- Cluster membership and account ownership: every gateway node
-- holds a lease row; an account's balance row names the member that owns it,
-- and a claim is refused while that member's lease is live.
CREATE TABLE cluster_members (
    id          TEXT PRIMARY KEY,
    address     TEXT NOT NULL DEFAULT '',
    mode        TEXT NOT NULL DEFAULT '',
    lease_until BIGINT NOT NULL,
    started_at  BIGINT NOT NULL
);
ALTER TABLE balances ADD COLUMN owner TEXT NOT NULL DEFAULT '';
