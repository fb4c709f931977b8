-- Every journal commit writes a generation record, and each index on
-- generations is one more B-tree that the commit updates per record. The
-- (account_id, end_user, created_at) index served only the activity list's
-- end-user filter; that list reaches an account's records through
-- generations_by_account like its key and model filters do, so the extra
-- index costs every charge and saves only a filtered page.
DROP INDEX IF EXISTS generations_account_end_user;
