-- What became of a payment's 54-FZ receipt: '' none, unsent, pending, succeeded, canceled.
ALTER TABLE payments ADD COLUMN receipt_status TEXT NOT NULL DEFAULT '';
