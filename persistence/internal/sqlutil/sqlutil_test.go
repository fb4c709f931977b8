package sqlutil

import (
	"slices"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
)

func TestMicros(t *testing.T) {
	if Micros(time.Time{}) != 0 || !Time(0).IsZero() {
		t.Error("the zero time is not stored as 0")
	}
	for _, in := range []time.Time{
		time.Date(2026, 3, 14, 15, 9, 26, 535_897_932, time.FixedZone("MSK", 3*3600)),
		time.Date(1969, 12, 31, 23, 59, 59, 999_999_999, time.UTC),
		time.Date(1, 1, 1, 0, 0, 0, 1000, time.UTC),
	} {
		got := Time(Micros(in))
		if want := in.Truncate(time.Microsecond); !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("Time(Micros(%v)) = %v; want %v in UTC", in, got, want)
		}
	}
	if MicrosPtr(nil) != nil || TimePtr(nil) != nil {
		t.Error("nil is not NULL")
	}
	if Since(time.Time{}) >= Micros(time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Error("Since(zero) does not take everything in")
	}
}

func TestResult(t *testing.T) {
	exp1 := time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)
	exp2 := exp1.AddDate(0, 1, 0)
	entries := []shlyuz.LedgerEntry{
		{ID: "a", AccountID: "y", BoughtDelta: 10},
		{ID: "b", AccountID: "x", PackageDelta: 5, PackageExpiresAt: exp2},
		{ID: "c", AccountID: "x", PackageDelta: 7, PackageExpiresAt: exp1},
		{ID: "d", AccountID: "x", BoughtDelta: 100},
		{ID: "e", AccountID: "z", BoughtDelta: 1000},
		{ID: "f", AccountID: "z"},
	}
	res, deltas := Result(entries, []Outcome{Applied, Applied, Applied, Duplicate, Fenced, Applied})
	if len(res.Applied) != 4 || res.Duplicate[0] != "d" || res.Fenced[0] != "e" {
		t.Errorf("Result = %+v", res)
	}
	want := []Delta{{AccountID: "x", Package: 12, ExpiresAt: exp1.UnixMicro()}, {AccountID: "y", Bought: 10}}
	if len(deltas) != len(want) || deltas[0] != want[0] || deltas[1] != want[1] {
		t.Errorf("deltas = %+v; want %+v (sorted, the last expiry wins, no-op accounts left out)", deltas, want)
	}
}

func TestMarkExisting(t *testing.T) {
	entries := []shlyuz.LedgerEntry{{ID: "a"}, {ID: "b"}, {ID: "c"}, {ID: "d"}, {ID: "e"}}
	outcomes := []Outcome{Fenced, Fenced, Insert, Insert, Applied}
	MarkExisting(entries, outcomes, map[string]bool{"a": true, "c": true, "e": true})
	want := []Outcome{Duplicate, Fenced, Duplicate, Insert, Applied}
	if !slices.Equal(outcomes, want) {
		t.Errorf("outcomes = %v; want %v", outcomes, want)
	}
}
