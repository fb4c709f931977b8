package sqlutil

import (
	"sort"

	"github.com/shlyuz/shlyuz"
)

// The stores sort in Go rather than in SQL: PostgreSQL orders text by the
// database's collation, and listings must not depend on it.

// SortPlans orders plans by id, bytewise.
func SortPlans(p []shlyuz.Plan) {
	sort.Slice(p, func(i, j int) bool { return p[i].ID < p[j].ID })
}

// SortModels orders models by id, bytewise.
func SortModels(m []shlyuz.Model) {
	sort.Slice(m, func(i, j int) bool { return m[i].ID < m[j].ID })
}

// SortKeys orders keys oldest first, then by id.
func SortKeys(k []shlyuz.Key) {
	sort.Slice(k, func(i, j int) bool {
		if !k[i].CreatedAt.Equal(k[j].CreatedAt) {
			return k[i].CreatedAt.Before(k[j].CreatedAt)
		}
		return k[i].ID < k[j].ID
	})
}
