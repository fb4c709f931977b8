-- A key's allowed_models (issue 19): model ids and "provider/" prefixes, one a line; empty: any model.
ALTER TABLE api_keys ADD COLUMN allowed_models TEXT NOT NULL DEFAULT '';
