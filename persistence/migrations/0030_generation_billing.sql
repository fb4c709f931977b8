-- A generation's usage details and how its charge adds up: one
-- JSON document {prompt_tokens_details, completion_tokens_details,
-- credits_details, over_reserved}; '' on records made before it was kept.
ALTER TABLE generations ADD COLUMN billing TEXT NOT NULL DEFAULT '';
