package cockroach

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/persistence/internal/videosql"
)

var (
	videoInsert    = videosql.Rebind(videosql.Insert)
	videoUpdate    = videosql.Rebind(videosql.Update)
	videoByID      = videosql.Rebind(videosql.ByID)
	videoByKey     = videosql.Rebind(videosql.ByKey)
	videoList      = videosql.Rebind(videosql.List)
	videoListOfKey = videosql.Rebind(videosql.ListOfKey)
	videoHolds     = videosql.Rebind(videosql.Holds)
	videoKeyHolds  = videosql.Rebind(videosql.KeyHolds)
	videoExpired   = videosql.Rebind(videosql.Expired)
	videoUnsettled = videosql.Unsettled
)

// CreateVideoJob inserts a job; shlyuz.ErrDuplicate for a used idempotency key.
func (s *Store) CreateVideoJob(ctx context.Context, j shlyuz.VideoJob) error {
	args, err := videosql.InsertArgs(j)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, videoInsert, args...)
		if isUniqueViolation(err) {
			return fmt.Errorf("cockroach: create video job %s: %w", j.ID, shlyuz.ErrDuplicate)
		}
		if err != nil {
			return fmt.Errorf("cockroach: create video job %s: %w", j.ID, err)
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
	return s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, videoUpdate, args...)
		if err != nil {
			return fmt.Errorf("cockroach: update video job %s: %w", j.ID, err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("cockroach: update video job %s: %w", j.ID, shlyuz.ErrNoRows)
		}
		return nil
	})
}

// VideoJob finds a job by id.
func (s *Store) VideoJob(ctx context.Context, id string) (shlyuz.VideoJob, error) {
	return s.oneVideo(ctx, "video job "+id, videoByID, id)
}

// VideoJobByIdempotencyKey finds the job an API key made with the idempotency key.
func (s *Store) VideoJobByIdempotencyKey(ctx context.Context, keyID, key string) (shlyuz.VideoJob, error) {
	return s.oneVideo(ctx, "video job by idempotency key", videoByKey, keyID, key)
}

func (s *Store) oneVideo(ctx context.Context, what, q string, args ...any) (shlyuz.VideoJob, error) {
	var data string
	err := s.read(ctx, func(ctx context.Context) error { return s.pool.QueryRow(ctx, q, args...).Scan(&data) })
	if err != nil {
		return shlyuz.VideoJob{}, notFound(err, what)
	}
	return videosql.Decode(data)
}

func (s *Store) videos(ctx context.Context, what, q string, args ...any) ([]shlyuz.VideoJob, error) {
	var data []string
	err := s.read(ctx, func(ctx context.Context) error {
		rows, err := s.pool.Query(ctx, q, args...)
		if err != nil {
			return err
		}
		data, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("cockroach: %s: %w", what, err)
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
		return s.videos(ctx, "video jobs", videoListOfKey, accountID, keyID, after, limit)
	}
	return s.videos(ctx, "video jobs", videoList, accountID, after, limit)
}

// UnsettledVideoJobs are the jobs still holding credits.
func (s *Store) UnsettledVideoJobs(ctx context.Context) ([]shlyuz.VideoJob, error) {
	return s.videos(ctx, "unsettled video jobs", videoUnsettled)
}

// ExpiredVideoFiles are completed jobs whose retention ended before the instant.
func (s *Store) ExpiredVideoFiles(ctx context.Context, before time.Time, limit int) ([]shlyuz.VideoJob, error) {
	return s.videos(ctx, "expired video files", videoExpired, before.UnixMilli(), limit)
}

// VideoHolds are an account's unsettled jobs' holds.
func (s *Store) VideoHolds(ctx context.Context, accountID string) (map[string]shlyuz.Credits, error) {
	return s.holds(ctx, videoHolds, accountID)
}

// VideoKeyHolds are a key's unsettled jobs' holds.
func (s *Store) VideoKeyHolds(ctx context.Context, keyID string) (map[string]shlyuz.Credits, error) {
	return s.holds(ctx, videoKeyHolds, keyID)
}

func (s *Store) holds(ctx context.Context, q, arg string) (map[string]shlyuz.Credits, error) {
	out := map[string]shlyuz.Credits{}
	err := s.read(ctx, func(ctx context.Context) error {
		clear(out)
		rows, err := s.pool.Query(ctx, q, arg)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id string
			var hold int64
			if err := rows.Scan(&id, &hold); err != nil {
				return err
			}
			out[id] = shlyuz.Credits(hold)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("cockroach: video holds: %w", err)
	}
	return out, nil
}
