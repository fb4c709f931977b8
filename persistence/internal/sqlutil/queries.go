package sqlutil

// ReconcileQuery lists the accounts whose balance differs from the sums of
// their ledger entries. It takes no parameters and runs on every dialect.
const ReconcileQuery = `SELECT b.account_id FROM balances b
	LEFT JOIN (
		SELECT account_id, CAST(SUM(package_delta) AS BIGINT) AS package_sum, CAST(SUM(bought_delta) AS BIGINT) AS bought_sum
		FROM ledger_entries GROUP BY account_id
	) s ON s.account_id = b.account_id
	WHERE b.package_credits <> COALESCE(s.package_sum, 0) OR b.bought_credits <> COALESCE(s.bought_sum, 0)`
