// Package sqlutil holds what the SQL stores share beyond the schema: how
// domain values are written to columns and read back, and how a ledger batch
// is judged entry by entry.
package sqlutil

import (
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/recordjson"
)

// Micros is t as unix microseconds; the zero time is 0.
func Micros(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMicro()
}

// Time is the instant us microseconds after the unix epoch, in UTC; 0 is the zero time.
func Time(us int64) time.Time {
	if us == 0 {
		return time.Time{}
	}
	return time.UnixMicro(us).UTC()
}

// MicrosPtr is Micros of *t, or nil (NULL) for a nil t.
func MicrosPtr(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	us := Micros(*t)
	return &us
}

// TimePtr is the inverse of MicrosPtr.
func TimePtr(us *int64) *time.Time {
	if us == nil {
		return nil
	}
	t := Time(*us)
	return &t
}

// EncodeAttempts is a generation's attempts as JSON text.
func EncodeAttempts(a []shlyuz.Attempt) string {
	var buf [256]byte
	return string(recordjson.AppendAttempts(buf[:0], a))
}

// DecodeAttempts reads what EncodeAttempts wrote.
func DecodeAttempts(s string) ([]shlyuz.Attempt, error) {
	var a []shlyuz.Attempt
	if s == "" {
		return nil, nil
	}
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		return nil, fmt.Errorf("decode attempts: %w", err)
	}
	return a, nil
}

// EncodeModel is a model override as JSON text.
func EncodeModel(m shlyuz.Model) (string, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return "", fmt.Errorf("encode model %s: %w", m.ID, err)
	}
	return string(b), nil
}

// DecodeModel reads what EncodeModel wrote.
func DecodeModel(s string) (shlyuz.Model, error) {
	var m shlyuz.Model
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		return m, fmt.Errorf("decode model: %w", err)
	}
	return m, nil
}

// Decimal parses a decimal column, naming it in the error.
func Decimal(column, s string) (shlyuz.Decimal, error) {
	d, err := shlyuz.ParseDecimal(s)
	if err != nil {
		return d, fmt.Errorf("column %s: %w", column, err)
	}
	return d, nil
}

// Since is the lower bound of a created_at range starting at t: the zero time
// takes everything in.
func Since(t time.Time) int64 {
	if t.IsZero() {
		return math.MinInt64
	}
	return t.UnixMicro()
}
