-- A generation whose upstream reported no usage is billed by the gateway's
-- own count (the prompt estimate plus the reply's tokens) and marked so.
ALTER TABLE generations ADD COLUMN usage_estimated BOOLEAN NOT NULL DEFAULT FALSE;
