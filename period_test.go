package shlyuz

import (
	"testing"
	"time"
	_ "time/tzdata" // Europe/Moscow without relying on the host's zoneinfo
)

func moscow(t *testing.T) *time.Location {
	t.Helper()
	loc, err := time.LoadLocation("Europe/Moscow")
	if err != nil {
		t.Fatalf("load Europe/Moscow: %v", err)
	}
	return loc
}

func TestParseLimitReset(t *testing.T) {
	tests := []struct {
		in      string
		want    LimitReset
		wantErr bool
	}{
		{"", ResetNever, false},
		{"none", ResetNever, false},
		{"never", ResetNever, false},
		{"day", ResetDay, false},
		{"daily", ResetDay, false},
		{"week", ResetWeek, false},
		{"weekly", ResetWeek, false},
		{"month", ResetMonth, false},
		{"monthly", ResetMonth, false},
		{"year", "", true},
		{"Day", "", true},
	}
	for _, tt := range tests {
		got, err := ParseLimitReset(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseLimitReset(%q) = %q, %v; want %q, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestPeriodStartEnd(t *testing.T) {
	msk := moscow(t)
	at := func(y int, m time.Month, d, h, min, s int) time.Time { return time.Date(y, m, d, h, min, s, 0, msk) }
	tests := []struct {
		name       string
		t          time.Time
		reset      LimitReset
		start, end time.Time
	}{
		{"day", at(2026, 3, 15, 13, 45, 0), ResetDay, at(2026, 3, 15, 0, 0, 0), at(2026, 3, 16, 0, 0, 0)},
		{"day at midnight", at(2026, 3, 16, 0, 0, 0), ResetDay, at(2026, 3, 16, 0, 0, 0), at(2026, 3, 17, 0, 0, 0)},
		// 22:30 UTC is already 01:30 the next day in Moscow (UTC+3)
		{"day from a UTC instant", time.Date(2026, 3, 15, 22, 30, 0, 0, time.UTC), ResetDay, at(2026, 3, 16, 0, 0, 0), at(2026, 3, 17, 0, 0, 0)},
		{"day at year end", at(2026, 12, 31, 23, 59, 59), ResetDay, at(2026, 12, 31, 0, 0, 0), at(2027, 1, 1, 0, 0, 0)},
		{"week from Sunday 23:59", at(2026, 3, 15, 23, 59, 0), ResetWeek, at(2026, 3, 9, 0, 0, 0), at(2026, 3, 16, 0, 0, 0)},
		{"week from Monday 00:00", at(2026, 3, 16, 0, 0, 0), ResetWeek, at(2026, 3, 16, 0, 0, 0), at(2026, 3, 23, 0, 0, 0)},
		{"week from Wednesday", at(2026, 3, 18, 12, 0, 0), ResetWeek, at(2026, 3, 16, 0, 0, 0), at(2026, 3, 23, 0, 0, 0)},
		{"week across a year", at(2027, 1, 1, 9, 0, 0), ResetWeek, at(2026, 12, 28, 0, 0, 0), at(2027, 1, 4, 0, 0, 0)},
		{"month from Jan 31", at(2026, 1, 31, 15, 0, 0), ResetMonth, at(2026, 1, 1, 0, 0, 0), at(2026, 2, 1, 0, 0, 0)},
		{"month from the leap day", at(2028, 2, 29, 12, 0, 0), ResetMonth, at(2028, 2, 1, 0, 0, 0), at(2028, 3, 1, 0, 0, 0)},
		{"month from Dec 31", at(2026, 12, 31, 23, 59, 59), ResetMonth, at(2026, 12, 1, 0, 0, 0), at(2027, 1, 1, 0, 0, 0)},
		{"month from Jan 1 00:00", at(2027, 1, 1, 0, 0, 0), ResetMonth, at(2027, 1, 1, 0, 0, 0), at(2027, 2, 1, 0, 0, 0)},
		{"never", at(2026, 3, 15, 13, 45, 0), ResetNever, time.Time{}, time.Time{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := PeriodStart(tt.t, tt.reset, msk)
			end := PeriodEnd(tt.t, tt.reset, msk)
			if !start.Equal(tt.start) {
				t.Errorf("PeriodStart = %v, want %v", start, tt.start)
			}
			if !end.Equal(tt.end) {
				t.Errorf("PeriodEnd = %v, want %v", end, tt.end)
			}
			if tt.reset != ResetNever && (tt.t.Before(start) || !tt.t.Before(end)) {
				t.Errorf("%v is not in [%v, %v)", tt.t, start, end)
			}
			if tt.reset == ResetWeek && start.Weekday() != time.Monday {
				t.Errorf("week starts on %v, want Monday", start.Weekday())
			}
			if tt.reset != ResetNever && start.Location() != msk {
				t.Errorf("PeriodStart in %v, want Europe/Moscow", start.Location())
			}
		})
	}
}

func TestWeekBoundaryWeekdays(t *testing.T) {
	msk := moscow(t)
	sunday := time.Date(2026, 3, 15, 23, 59, 0, 0, msk)
	monday := time.Date(2026, 3, 16, 0, 0, 0, 0, msk)
	if sunday.Weekday() != time.Sunday || monday.Weekday() != time.Monday {
		t.Fatalf("fixture weekdays are %v and %v", sunday.Weekday(), monday.Weekday())
	}
	if !PeriodEnd(sunday, ResetWeek, msk).Equal(PeriodStart(monday, ResetWeek, msk)) {
		t.Errorf("the week of Sunday 23:59 does not end where Monday 00:00's begins")
	}
}

func TestPlanPeriodEnd(t *testing.T) {
	msk := moscow(t)
	at := func(y int, m time.Month, d, h, min int) time.Time { return time.Date(y, m, d, h, min, 0, 0, msk) }
	tests := []struct {
		name  string
		t     time.Time
		reset LimitReset
		want  time.Time
	}{
		{"month from Jan 31 to Feb 28", at(2026, 1, 31, 10, 30), ResetMonth, at(2026, 2, 28, 10, 30)},
		{"month from Jan 31 to the leap day", at(2028, 1, 31, 10, 30), ResetMonth, at(2028, 2, 29, 10, 30)},
		{"month from Jan 29 in a common year", at(2026, 1, 29, 8, 0), ResetMonth, at(2026, 2, 28, 8, 0)},
		{"month from Mar 31 to Apr 30", at(2026, 3, 31, 23, 59), ResetMonth, at(2026, 4, 30, 23, 59)},
		{"month from Mar 15", at(2026, 3, 15, 12, 0), ResetMonth, at(2026, 4, 15, 12, 0)},
		{"month from Dec 31", at(2026, 12, 31, 23, 0), ResetMonth, at(2027, 1, 31, 23, 0)},
		{"month from the leap day", at(2028, 2, 29, 0, 0), ResetMonth, at(2028, 3, 29, 0, 0)},
		{"day", at(2026, 12, 31, 18, 0), ResetDay, at(2027, 1, 1, 18, 0)},
		{"week", at(2026, 3, 15, 9, 0), ResetWeek, at(2026, 3, 22, 9, 0)},
		{"never", at(2026, 3, 15, 9, 0), ResetNever, time.Time{}},
		// 21:00 UTC on Jan 30 is 00:00 on Jan 31 in Moscow
		{"month from a UTC instant", time.Date(2026, 1, 30, 21, 0, 0, 0, time.UTC), ResetMonth, at(2026, 2, 28, 0, 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := PlanPeriodEnd(tt.t, tt.reset, msk); !got.Equal(tt.want) {
				t.Errorf("PlanPeriodEnd(%v, %q) = %v, want %v", tt.t, tt.reset, got, tt.want)
			}
		})
	}
}
