-- A key's optional rate limit: requests and tokens a minute (NULL: none).
ALTER TABLE api_keys ADD COLUMN rate_rpm BIGINT NULL;
ALTER TABLE api_keys ADD COLUMN rate_tpm BIGINT NULL;
