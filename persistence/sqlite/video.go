package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/internal/videosql"
)

// CreateVideoJob inserts a job; shlyuz.ErrDuplicate for a used idempotency key.
func (s *Store) CreateVideoJob(ctx context.Context, j shlyuz.VideoJob) error {
	args, err := videosql.InsertArgs(j)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, videosql.Insert, args...)
		if isUniqueViolation(err) {
			return fmt.Errorf("sqlite: create video job %s: %w", j.ID, shlyuz.ErrDuplicate)
		}
		if err != nil {
			return fmt.Errorf("sqlite: create video job %s: %w", j.ID, err)
		}
		return nil
	})
}

// UpdateVideoJob replaces a job's state.
func (s *Store) UpdateVideoJob(ctx context.Context, j shlyuz.VideoJob) error {
	args, err := videosql.UpdateArgs(j)
	if err != nil {
		return err
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, videosql.Update, args...)
		return touchedOne(res, err, "update video job "+j.ID)
	})
}

// VideoJob finds a job by id.
func (s *Store) VideoJob(ctx context.Context, id string) (shlyuz.VideoJob, error) {
	return s.oneVideo(ctx, "video job "+id, videosql.ByID, id)
}

// VideoJobByIdempotencyKey finds the job an API key made with the idempotency key.
func (s *Store) VideoJobByIdempotencyKey(ctx context.Context, keyID, key string) (shlyuz.VideoJob, error) {
	return s.oneVideo(ctx, "video job by idempotency key", videosql.ByKey, keyID, key)
}

func (s *Store) oneVideo(ctx context.Context, what, q string, args ...any) (shlyuz.VideoJob, error) {
	var data string
	if err := s.db.QueryRowContext(ctx, q, args...).Scan(&data); err != nil {
		return shlyuz.VideoJob{}, notFound(err, what)
	}
	return videosql.Decode(data)
}

func (s *Store) videos(ctx context.Context, what, q string, args ...any) ([]shlyuz.VideoJob, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", what, err)
	}
	data, err := collect(rows, scanString)
	if err != nil {
		return nil, fmt.Errorf("sqlite: %s: %w", what, err)
	}
	return videosql.DecodeAll(data)
}

// VideoJobs lists an account's jobs (of one API key, or of all for keyID
// ""), newest first, after the cursor.
func (s *Store) VideoJobs(ctx context.Context, accountID, keyID, after string, limit int) ([]shlyuz.VideoJob, error) {
	if after == "" {
		after = videosql.ListStart
	}
	if keyID != "" {
		return s.videos(ctx, "video jobs", videosql.ListOfKey, accountID, keyID, after, limit)
	}
	return s.videos(ctx, "video jobs", videosql.List, accountID, after, limit)
}

// UnsettledVideoJobs are the jobs still holding credits.
func (s *Store) UnsettledVideoJobs(ctx context.Context) ([]shlyuz.VideoJob, error) {
	return s.videos(ctx, "unsettled video jobs", videosql.Unsettled)
}

// ExpiredVideoFiles are completed jobs whose retention ended before the instant.
func (s *Store) ExpiredVideoFiles(ctx context.Context, before time.Time, limit int) ([]shlyuz.VideoJob, error) {
	return s.videos(ctx, "expired video files", videosql.Expired, before.UnixMilli(), limit)
}

// VideoHolds are an account's unsettled jobs' holds.
func (s *Store) VideoHolds(ctx context.Context, accountID string) (map[string]shlyuz.Credits, error) {
	return s.holds(ctx, videosql.Holds, accountID)
}

// VideoKeyHolds are a key's unsettled jobs' holds.
func (s *Store) VideoKeyHolds(ctx context.Context, keyID string) (map[string]shlyuz.Credits, error) {
	return s.holds(ctx, videosql.KeyHolds, keyID)
}

func (s *Store) holds(ctx context.Context, q, arg string) (map[string]shlyuz.Credits, error) {
	rows, err := s.db.QueryContext(ctx, q, arg)
	if err != nil {
		return nil, fmt.Errorf("sqlite: video holds: %w", err)
	}
	defer rows.Close()
	out := map[string]shlyuz.Credits{}
	for rows.Next() {
		var id string
		var hold int64
		if err := rows.Scan(&id, &hold); err != nil {
			return nil, fmt.Errorf("sqlite: video holds: %w", err)
		}
		out[id] = shlyuz.Credits(hold)
	}
	return out, rows.Err()
}
