package cockroach

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/internal/sqlutil"
)

// Settings returns the operator's settings, and false when they were never saved.
func (s *Store) Settings(ctx context.Context) (shlyuz.Settings, bool, error) {
	var st shlyuz.Settings
	err := s.read(ctx, func(ctx context.Context) error {
		var err error
		st, err = sqlutil.ScanSettings(s.pool.QueryRow(ctx, `SELECT `+sqlutil.SettingsColumns+` FROM settings WHERE id = 1`))
		return err
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return shlyuz.Settings{}, false, nil
	}
	if err != nil {
		return shlyuz.Settings{}, false, fmt.Errorf("cockroach: settings: %w", err)
	}
	return st, true, nil
}

// SaveSettings replaces the operator's settings.
func (s *Store) SaveSettings(ctx context.Context, st shlyuz.Settings) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO settings (id, `+sqlutil.SettingsColumns+`) VALUES (1, $1, $2, $3)
			ON CONFLICT (id) DO UPDATE SET rate = excluded.rate, k = excluded.k, updated_at = excluded.updated_at`,
			sqlutil.SettingsArgs(st)...)
		if err != nil {
			return fmt.Errorf("cockroach: save settings: %w", err)
		}
		return nil
	})
}

// ReplaceSettings saves next only while the stored settings are still prev.
func (s *Store) ReplaceSettings(ctx context.Context, prev *shlyuz.Settings, next shlyuz.Settings) (bool, error) {
	var done bool
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		q, args := `INSERT INTO settings (id, `+sqlutil.SettingsColumns+`) VALUES (1, $1, $2, $3) ON CONFLICT (id) DO NOTHING`, sqlutil.SettingsArgs(next)
		if prev != nil {
			q = `UPDATE settings SET rate = $1, k = $2, updated_at = $3 WHERE id = 1 AND rate = $4 AND k = $5 AND updated_at = $6`
			args = append(args, sqlutil.SettingsArgs(*prev)...)
		}
		tag, err := tx.Exec(ctx, q, args...)
		if err != nil {
			return fmt.Errorf("cockroach: replace settings: %w", err)
		}
		done = tag.RowsAffected() == 1
		return nil
	})
	return done, err
}

// Plans lists the plans sorted by id.
func (s *Store) Plans(ctx context.Context) ([]shlyuz.Plan, error) {
	var plans []shlyuz.Plan
	err := s.read(ctx, func(ctx context.Context) error {
		rows, err := s.pool.Query(ctx, `SELECT `+sqlutil.PlanColumns+` FROM plans`)
		if err != nil {
			return err
		}
		plans, err = pgx.CollectRows(rows, rowTo(sqlutil.ScanPlan))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cockroach: plans: %w", err)
	}
	sqlutil.SortPlans(plans)
	return plans, nil
}

// SavePlan inserts the plan or replaces the one with its id.
func (s *Store) SavePlan(ctx context.Context, p shlyuz.Plan) error {
	if p.ID == "" {
		return errors.New("cockroach: save plan: id is required")
	}
	return s.inTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO plans (`+sqlutil.PlanColumns+`) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (id) DO UPDATE SET name = excluded.name, price_rubles = excluded.price_rubles,
				package_credits = excluded.package_credits, period = excluded.period`,
			sqlutil.PlanArgs(p)...)
		if err != nil {
			return fmt.Errorf("cockroach: save plan %s: %w", p.ID, err)
		}
		return nil
	})
}

// DeletePlan deletes the plan; an unknown id is shlyuz.ErrNoRows.
func (s *Store) DeletePlan(ctx context.Context, id string) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM plans WHERE id = $1`, id)
		if err != nil {
			return fmt.Errorf("cockroach: delete plan %s: %w", id, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("cockroach: delete plan %s: %w", id, shlyuz.ErrNoRows)
		}
		return nil
	})
}

// ModelOverrides lists the operator's model overrides sorted by id.
func (s *Store) ModelOverrides(ctx context.Context) ([]shlyuz.Model, error) {
	var models []shlyuz.Model
	err := s.read(ctx, func(ctx context.Context) error {
		rows, err := s.pool.Query(ctx, `SELECT id, model FROM model_overrides`)
		if err != nil {
			return err
		}
		models, err = pgx.CollectRows(rows, rowTo(sqlutil.ScanModelOverride))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cockroach: model overrides: %w", err)
	}
	sqlutil.SortModels(models)
	return models, nil
}

// SaveModelOverride inserts the override or replaces the one with the model's id.
func (s *Store) SaveModelOverride(ctx context.Context, m shlyuz.Model) error {
	if m.ID == "" {
		return errors.New("cockroach: save model override: id is required")
	}
	doc, err := sqlutil.EncodeModel(m)
	if err != nil {
		return fmt.Errorf("cockroach: save model override: %w", err)
	}
	return s.inTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO model_overrides (id, model, updated_at) VALUES ($1, $2, $3)
			ON CONFLICT (id) DO UPDATE SET model = excluded.model, updated_at = excluded.updated_at`,
			m.ID, doc, time.Now().UnixMicro())
		if err != nil {
			return fmt.Errorf("cockroach: save model override %s: %w", m.ID, err)
		}
		return nil
	})
}
