-- The web chat's own key is marked as such (never found by its name, which
-- anyone may give a key through the API); a disabled key can be enabled again
-- (a revoked one cannot); updated_at is when its name, ceiling, period or
-- state last changed.
ALTER TABLE api_keys ADD COLUMN web_chat BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE api_keys ADD COLUMN disabled BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE api_keys ADD COLUMN updated_at BIGINT NULL;
CREATE INDEX api_keys_web_chat ON api_keys (account_id, web_chat);
