-- A key's allowed_models: model ids and "provider/" prefixes, one a line; empty: any model.
ALTER TABLE api_keys ADD COLUMN allowed_models TEXT NOT NULL DEFAULT '';
