package shlyuz

import (
	"testing"
	"time"
)

func TestCatalogLifecycle(t *testing.T) {
	day := func(s string) time.Time { d, _ := time.Parse(time.DateOnly, s); return d }
	models := []Model{
		{ID: "a/old", Lifecycle: Lifecycle{DeprecationDate: "2026-03-01", ExpirationDate: "2026-06-15", Successor: "a/new"}},
		{ID: "a/kept", Lifecycle: Lifecycle{ExpirationDate: "2026-06-15", Successor: "a/new", ServeSuccessor: true}},
		{ID: "a/new"},
	}
	cases := []struct {
		name                string
		now                 string
		id                  string
		found               string // "" not found
		deprecated, retired bool
		status              int // Missing's status when not found
		listed              int
	}{
		{"before deprecation", "2026-02-01", "a/old", "a/old", false, false, 0, 3},
		{"deprecated", "2026-03-01", "a/old", "a/old", true, false, 0, 3},
		{"retired", "2026-06-15", "a/old", "", false, true, 410, 1},
		{"served by successor", "2026-06-16", "a/kept", "a/new", false, true, 0, 1},
		{"unknown", "2026-06-16", "a/none", "", false, false, 404, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cat := NewCatalog(models, Pricing{Rate: MustDecimal("100"), K: MustDecimal("1")})
			now := day(c.now)
			cat.Clock = func() time.Time { return now }
			m, ok := cat.Get(c.id)
			if got := ""; ok {
				got = m.ID
				if got != c.found {
					t.Fatalf("Get(%s) = %s, want %q", c.id, got, c.found)
				}
			} else if c.found != "" {
				t.Fatalf("Get(%s) found nothing, want %s", c.id, c.found)
			}
			if !ok {
				if e := cat.Missing(c.id); e.Status != c.status {
					t.Fatalf("Missing(%s): %d, want %d", c.id, e.Status, c.status)
				}
			}
			if r, ok := cat.byID[c.id]; ok {
				if r.Deprecated(now) != c.deprecated || r.Retired(now) != c.retired {
					t.Errorf("deprecated %v retired %v", r.Deprecated(now), r.Retired(now))
				}
			}
			if n := len(cat.List()); n != c.listed {
				t.Errorf("List: %d models, want %d", n, c.listed)
			}
		})
	}
}

func TestLifecycleHeaders(t *testing.T) {
	cat := NewCatalog([]Model{{ID: "a/old", Lifecycle: Lifecycle{DeprecationDate: "2026-03-01", ExpirationDate: "2026-06-15T12:00:00Z", Successor: "a/new"}}}, Pricing{Rate: MustDecimal("100"), K: MustDecimal("1")})
	m := cat.byID["a/old"]
	// RFC 9745's example form and RFC 8594's HTTP-date, written here by hand.
	if got := m.DeprecationHeader(); got != "@1772323200" {
		t.Errorf("Deprecation %q", got)
	}
	if got := m.SunsetHeader(); got != "Mon, 15 Jun 2026 12:00:00 GMT" {
		t.Errorf("Sunset %q", got)
	}
	if got := m.ExpirationDay(); got != "2026-06-15" {
		t.Errorf("expiration_date %q", got)
	}
}

func TestCheckLifecycle(t *testing.T) {
	for _, c := range []struct {
		l  Lifecycle
		ok bool
	}{
		{Lifecycle{ExpirationDate: "2026-06-15"}, true},
		{Lifecycle{ExpirationDate: "2026-06-15T10:00:00+03:00"}, true},
		{Lifecycle{ExpirationDate: "15.06.2026"}, false},
		{Lifecycle{DeprecationDate: "2026-07-01", ExpirationDate: "2026-06-15"}, false},
		{Lifecycle{Successor: "a/x"}, false},
		{Lifecycle{ServeSuccessor: true}, false},
	} {
		if err := CheckLifecycle("a/x", c.l); (err == nil) != c.ok {
			t.Errorf("%+v: %v", c.l, err)
		}
	}
}

// TestEmbeddedLifecycles: every date in catalog.json parses, and every
// successor is a model of the catalog that is not itself retired earlier.
func TestEmbeddedLifecycles(t *testing.T) {
	models, err := EmbeddedModels()
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, m := range models {
		ids[m.ID] = true
	}
	dated := 0
	for _, m := range models {
		if err := CheckLifecycle(m.ID, m.Lifecycle); err != nil {
			t.Errorf("%s: %v", m.ID, err)
		}
		if m.Successor != "" && !ids[m.Successor] {
			t.Errorf("%s: successor %s is not in the catalog", m.ID, m.Successor)
		}
		if m.ExpirationDate != "" {
			dated++
		}
	}
	if dated == 0 {
		t.Error("no model of the catalog has an expiration date")
	}
}
