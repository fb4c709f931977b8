-- A video's Idempotency-Key belongs to the key that made the job: another key
-- of the account using the same value makes its own job.
DROP INDEX video_jobs_idempotency;
CREATE UNIQUE INDEX video_jobs_idempotency_per_key ON video_jobs (key_id, idempotency_key);
