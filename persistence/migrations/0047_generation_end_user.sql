-- The end user a generation was made for (the request's "user"), a column
-- of its own so that activity groups and filters by it.
ALTER TABLE generations ADD COLUMN end_user TEXT NOT NULL DEFAULT '';
CREATE INDEX generations_account_end_user ON generations (account_id, end_user, created_at);
