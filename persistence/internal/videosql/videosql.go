// Package videosql is the SQL of the video_jobs table shared by both stores:
// queries written with "?" placeholders (Rebind turns them into $n for
// PostgreSQL) and the row codec.
package videosql

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	shlyuz "github.com/shlyuz/shlyuz"
)

// The queries.
const (
	Insert = `INSERT INTO video_jobs (id, account_id, key_id, idempotency_key, state, hold, settled, expires_at, data)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
	Update = `UPDATE video_jobs SET state = ?, hold = ?, settled = ?, expires_at = ?, data = ? WHERE id = ?`
	ByID   = `SELECT data FROM video_jobs WHERE id = ?`
	ByKey  = `SELECT data FROM video_jobs WHERE key_id = ? AND idempotency_key = ?`
	List   = `SELECT data FROM video_jobs WHERE account_id = ? AND id < ? ORDER BY id DESC LIMIT ?`
	// ListOfKey is List of the jobs one API key made.
	ListOfKey = `SELECT data FROM video_jobs WHERE account_id = ? AND key_id = ? AND id < ? ORDER BY id DESC LIMIT ?`
	// Unsettled are the jobs still holding credits.
	Unsettled = `SELECT data FROM video_jobs WHERE settled = FALSE ORDER BY id`
	Holds     = `SELECT id, hold FROM video_jobs WHERE settled = FALSE AND account_id = ?`
	KeyHolds  = `SELECT id, hold FROM video_jobs WHERE settled = FALSE AND key_id = ?`
	Expired   = `SELECT data FROM video_jobs WHERE state = 'completed' AND expires_at < ? ORDER BY expires_at LIMIT ?`
)

// ListStart is a cursor after every id (ids are "video_" and hex digits).
const ListStart = "video_~"

// Rebind turns "?" placeholders into $1, $2, … for PostgreSQL.
func Rebind(q string) string {
	var b strings.Builder
	n := 0
	for _, c := range q {
		if c == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}

// InsertArgs are Insert's arguments.
func InsertArgs(j shlyuz.VideoJob) ([]any, error) {
	data, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	var idem any
	if j.IdempotencyKey != "" {
		idem = j.IdempotencyKey
	}
	return []any{j.ID, j.AccountID, j.KeyID, idem, string(j.State), int64(j.Hold), j.Settled, expires(j), string(data)}, nil
}

// UpdateArgs are Update's arguments.
func UpdateArgs(j shlyuz.VideoJob) ([]any, error) {
	data, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	return []any{string(j.State), int64(j.Hold), j.Settled, expires(j), string(data), j.ID}, nil
}

func expires(j shlyuz.VideoJob) any {
	if j.ExpiresAt == nil {
		return nil
	}
	return j.ExpiresAt.UnixMilli()
}

// Decode reads a job from its data column.
func Decode(data string) (shlyuz.VideoJob, error) {
	var j shlyuz.VideoJob
	if err := json.Unmarshal([]byte(data), &j); err != nil {
		return j, fmt.Errorf("video job: %w", err)
	}
	return j, nil
}

// DecodeAll reads the jobs of a query's data column.
func DecodeAll(data []string) ([]shlyuz.VideoJob, error) {
	out := make([]shlyuz.VideoJob, 0, len(data))
	for _, d := range data {
		j, err := Decode(d)
		if err != nil {
			return nil, err
		}
		out = append(out, j)
	}
	return out, nil
}
