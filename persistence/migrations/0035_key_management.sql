-- A management key: it manages the account's keys through /api/v1/keys and never calls a model.
ALTER TABLE api_keys ADD COLUMN management BOOLEAN NOT NULL DEFAULT FALSE;
