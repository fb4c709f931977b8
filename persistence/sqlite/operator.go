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
	st, err := sqlutil.ScanSettings(s.db.QueryRowContext(ctx, `SELECT `+sqlutil.SettingsColumns+` FROM settings WHERE id = 1`))
	if errors.Is(err, sql.ErrNoRows) {
		return shlyuz.Settings{}, false, nil
	}
	if err != nil {
		return shlyuz.Settings{}, false, fmt.Errorf("sqlite: settings: %w", err)
	}
	return st, true, nil
}

// SaveSettings replaces the operator's settings.
func (s *Store) SaveSettings(ctx context.Context, st shlyuz.Settings) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO settings (id, `+sqlutil.SettingsColumns+`) VALUES (1, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET rate = excluded.rate, k = excluded.k, updated_at = excluded.updated_at`,
			sqlutil.SettingsArgs(st)...)
		if err != nil {
			return fmt.Errorf("sqlite: save settings: %w", err)
		}
		return nil
	})
}

// ReplaceSettings saves next only while the stored settings are still prev.
func (s *Store) ReplaceSettings(ctx context.Context, prev *shlyuz.Settings, next shlyuz.Settings) (bool, error) {
	var done bool
	err := s.write(ctx, func(tx *sql.Tx) error {
		q, args := `INSERT INTO settings (id, `+sqlutil.SettingsColumns+`) VALUES (1, ?, ?, ?) ON CONFLICT (id) DO NOTHING`, sqlutil.SettingsArgs(next)
		if prev != nil {
			q = `UPDATE settings SET rate = ?, k = ?, updated_at = ? WHERE id = 1 AND rate = ? AND k = ? AND updated_at = ?`
			args = append(args, sqlutil.SettingsArgs(*prev)...)
		}
		res, err := tx.ExecContext(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("sqlite: replace settings: %w", err)
		}
		n, err := res.RowsAffected()
		done = n == 1
		return err
	})
	return done, err
}

// Plans lists the plans sorted by id.
func (s *Store) Plans(ctx context.Context) ([]shlyuz.Plan, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+sqlutil.PlanColumns+` FROM plans`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: plans: %w", err)
	}
	plans, err := collect(rows, sqlutil.ScanPlan)
	if err != nil {
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
		_, err := tx.ExecContext(ctx, `INSERT INTO plans (`+sqlutil.PlanColumns+`) VALUES (?, ?, ?, ?, ?)
			ON CONFLICT (id) DO UPDATE SET name = excluded.name, price_rubles = excluded.price_rubles,
				package_credits = excluded.package_credits, period = excluded.period`,
			sqlutil.PlanArgs(p)...)
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
		return touchedOne(res, err, "delete plan "+id)
	})
}

// ModelOverrides lists the operator's model overrides sorted by id.
func (s *Store) ModelOverrides(ctx context.Context) ([]shlyuz.Model, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT id, model FROM model_overrides`)
	if err != nil {
		return nil, fmt.Errorf("sqlite: model overrides: %w", err)
	}
	models, err := collect(rows, sqlutil.ScanModelOverride)
	if err != nil {
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
