package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/internal/sqlutil"
)

// Settings returns the operator's settings, and false when they were never saved.
func (s *Store) Settings(ctx context.Context) (shlyuz.Settings, bool, error) {
	var rate, k string
	var updated int64
	err := s.db.QueryRowContext(ctx, `SELECT rate, k, updated_at FROM settings WHERE id = 1`).Scan(&rate, &k, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return shlyuz.Settings{}, false, nil
	}
	if err != nil {
		return shlyuz.Settings{}, false, fmt.Errorf("sqlite: settings: %w", err)
	}
	var st shlyuz.Settings
	if st.Pricing.Rate, err = sqlutil.Decimal("rate", rate); err != nil {
		return shlyuz.Settings{}, false, fmt.Errorf("sqlite: settings: %w", err)
	}
	if st.Pricing.K, err = sqlutil.Decimal("k", k); err != nil {
		return shlyuz.Settings{}, false, fmt.Errorf("sqlite: settings: %w", err)
	}
	st.UpdatedAt = sqlutil.Time(updated)
	return st, true, nil
}

// SaveSettings replaces the operator's settings.
func (s *Store) SaveSettings(ctx context.Context, st shlyuz.Settings) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO settings (id, rate, k, updated_at) VALUES (1, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET rate = excluded.rate, k = excluded.k, updated_at = excluded.updated_at`,
			st.Pricing.Rate.String(), st.Pricing.K.String(), sqlutil.Micros(st.UpdatedAt))
		if err != nil {
			return fmt.Errorf("sqlite: save settings: %w", err)
		}
		return nil
	})
}

// Plans lists the plans sorted by id.
func (s *Store) Plans(ctx context.Context) ([]shlyuz.Plan, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, name, price_rubles, package_credits, period FROM plans`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: plans: %w", err)
	}
	defer rows.Close()
	var plans []shlyuz.Plan
	for rows.Next() {
		var p shlyuz.Plan
		var price, period string
		if err := rows.Scan(&p.ID, &p.Name, &price, &p.PackageCredits, &period); err != nil {
			return nil, fmt.Errorf("sqlite: plans: %w", err)
		}
		if p.PriceRubles, err = sqlutil.Decimal("price_rubles", price); err != nil {
			return nil, fmt.Errorf("sqlite: plan %s: %w", p.ID, err)
		}
		p.Period = shlyuz.LimitReset(period)
		plans = append(plans, p)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: plans: %w", err)
	}
	sqlutil.SortPlans(plans)
	return plans, nil
}

// SavePlan inserts the plan or replaces the one with its id.
func (s *Store) SavePlan(ctx context.Context, p shlyuz.Plan) error {
	if p.ID == "" {
		return errors.New("sqlite: save plan: id is required")
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO plans (id, name, price_rubles, package_credits, period) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET name = excluded.name, price_rubles = excluded.price_rubles,
				package_credits = excluded.package_credits, period = excluded.period`,
			p.ID, p.Name, p.PriceRubles.String(), p.PackageCredits, string(p.Period))
		if err != nil {
			return fmt.Errorf("sqlite: save plan %s: %w", p.ID, err)
		}
		return nil
	})
}

// DeletePlan deletes the plan; an unknown id is shlyuz.ErrNoRows.
func (s *Store) DeletePlan(ctx context.Context, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM plans WHERE id = ?`, id)
		if err != nil {
			return fmt.Errorf("sqlite: delete plan %s: %w", id, err)
		}
		if n, err := res.RowsAffected(); err != nil {
			return fmt.Errorf("sqlite: delete plan %s: %w", id, err)
		} else if n == 0 {
			return fmt.Errorf("sqlite: delete plan %s: %w", id, shlyuz.ErrNoRows)
		}
		return nil
	})
}

// ModelOverrides lists the operator's model overrides sorted by id.
func (s *Store) ModelOverrides(ctx context.Context) ([]shlyuz.Model, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, model FROM model_overrides`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: model overrides: %w", err)
	}
	defer rows.Close()
	var models []shlyuz.Model
	for rows.Next() {
		var id, doc string
		if err := rows.Scan(&id, &doc); err != nil {
			return nil, fmt.Errorf("sqlite: model overrides: %w", err)
		}
		m, err := sqlutil.DecodeModel(doc)
		if err != nil {
			return nil, fmt.Errorf("sqlite: model override %s: %w", id, err)
		}
		models = append(models, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("sqlite: model overrides: %w", err)
	}
	sqlutil.SortModels(models)
	return models, nil
}

// SaveModelOverride inserts the override or replaces the one with the model's id.
func (s *Store) SaveModelOverride(ctx context.Context, m shlyuz.Model) error {
	if m.ID == "" {
		return errors.New("sqlite: save model override: id is required")
	}
	doc, err := sqlutil.EncodeModel(m)
	if err != nil {
		return fmt.Errorf("sqlite: save model override: %w", err)
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO model_overrides (id, model, updated_at) VALUES (?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET model = excluded.model, updated_at = excluded.updated_at`,
			m.ID, doc, time.Now().UnixMicro())
		if err != nil {
			return fmt.Errorf("sqlite: save model override %s: %w", m.ID, err)
		}
		return nil
	})
}
