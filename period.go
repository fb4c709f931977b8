package shlyuz

import (
	"encoding/json"
	"fmt"
	"time"
)

// LimitReset is how often a key's spending ceiling starts over: a calendar
// day, week (Monday first) or month in the gateway's time zone, or never.
type LimitReset string

// The reset periods a key may have.
const (
	ResetNever LimitReset = ""
	ResetDay   LimitReset = "day"
	ResetWeek  LimitReset = "week"
	ResetMonth LimitReset = "month"
)

// ParseLimitReset accepts day, week, month (and OpenRouter's daily, weekly, monthly), or empty for never.
func ParseLimitReset(s string) (LimitReset, error) {
	switch s {
	case "", "none", "never":
		return ResetNever, nil
	case "day", "daily":
		return ResetDay, nil
	case "week", "weekly":
		return ResetWeek, nil
	case "month", "monthly":
		return ResetMonth, nil
	}
	return "", fmt.Errorf("limit_reset must be day, week or month, not %q", s)
}

// PeriodStart is the first instant of the period that holds t, in loc.
// For ResetNever it is the zero time: the period is the key's whole life.
func PeriodStart(t time.Time, r LimitReset, loc *time.Location) time.Time {
	t = t.In(loc)
	y, m, d := t.Date()
	switch r {
	case ResetDay:
		return time.Date(y, m, d, 0, 0, 0, 0, loc)
	case ResetWeek:
		back := (int(t.Weekday()) + 6) % 7 // days since Monday
		return time.Date(y, m, d-back, 0, 0, 0, 0, loc)
	case ResetMonth:
		return time.Date(y, m, 1, 0, 0, 0, 0, loc)
	}
	return time.Time{}
}

// PeriodEnd is the first instant after the period that holds t (the next reset),
// or the zero time for ResetNever.
func PeriodEnd(t time.Time, r LimitReset, loc *time.Location) time.Time {
	s := PeriodStart(t, r, loc)
	switch r {
	case ResetDay:
		return s.AddDate(0, 0, 1)
	case ResetWeek:
		return s.AddDate(0, 0, 7)
	case ResetMonth:
		return s.AddDate(0, 1, 0)
	}
	return time.Time{}
}

// PlanPeriodEnd is when a package bought at t for a plan of the given period expires:
// the same wall-clock instant one period later (a month from Jan 31 is the last day of February).
func PlanPeriodEnd(t time.Time, r LimitReset, loc *time.Location) time.Time {
	t = t.In(loc)
	switch r {
	case ResetDay:
		return t.AddDate(0, 0, 1)
	case ResetWeek:
		return t.AddDate(0, 0, 7)
	case ResetMonth:
		y, m, d := t.Date()
		first := time.Date(y, m+1, 1, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
		last := first.AddDate(0, 1, -1).Day()
		if d > last {
			d = last
		}
		return time.Date(y, m+1, d, t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), loc)
	}
	return time.Time{}
}

// ParseInstant reads an instant given as RFC 3339 (2027-06-30T00:00:00+03:00)
// or as a date (2027-06-30: its midnight in UTC).
func ParseInstant(v string) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339, v); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	return time.Time{}, fmt.Errorf("%q is neither a date (2027-06-30) nor an RFC 3339 instant (2027-06-30T00:00:00+03:00)", v)
}

// MarshalJSON writes a key's reset period, or null when its limit never resets.
func (r LimitReset) MarshalJSON() ([]byte, error) {
	if r == ResetNever {
		return []byte("null"), nil
	}
	return json.Marshal(string(r))
}

// UnmarshalJSON reads a reset period as written, null as never; ParseLimitReset
// checks it where a request is validated.
func (r *LimitReset) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*r = ResetNever
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*r = LimitReset(s)
	return nil
}
