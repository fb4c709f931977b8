package shlyuz

import (
	"fmt"
	"time"
)

// Lifecycle is a model's deprecation and retirement, as its provider
// announced them or the operator decided. A deprecated model is still sold,
// with a warning; a retired one is not: a call to it fails with 410 naming
// its successor, or is served by the successor when ServeSuccessor is set.
// Dates are "YYYY-MM-DD" (midnight UTC) or RFC 3339 times.
type Lifecycle struct {
	// DeprecationDate: from then on the model is deprecated. When only an
	// expiration date is known, the model counts as deprecated from the
	// moment the catalog learned of its retirement (the catalog's build).
	DeprecationDate string `json:"deprecation_date,omitempty" yaml:"deprecation_date"`
	// ExpirationDate: the model retires at this moment (OpenRouter's name).
	ExpirationDate string `json:"expiration_date,omitempty" yaml:"expiration_date"`
	// Successor is the model id that replaces this one, where one is known.
	Successor string `json:"successor,omitempty" yaml:"successor"`
	// ServeSuccessor: once retired, calls to the model go to the successor
	// (the operator's choice; off by default, so a client learns of the change).
	ServeSuccessor bool `json:"serve_successor,omitempty" yaml:"serve_successor"`
}

// ParseLifecycleDate reads a lifecycle date: "YYYY-MM-DD" is midnight UTC of
// that day, anything else must be an RFC 3339 time.
func ParseLifecycleDate(s string) (time.Time, error) {
	if len(s) == len(time.DateOnly) {
		return time.Parse(time.DateOnly, s)
	}
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither a date (YYYY-MM-DD) nor an RFC 3339 time", s)
	}
	return t, nil
}

// CheckLifecycle reports a lifecycle that cannot hold: a date that does not
// parse, a deprecation after the retirement, the model as its own successor.
func CheckLifecycle(id string, l Lifecycle) error {
	var dep, exp time.Time
	var err error
	if l.DeprecationDate != "" {
		if dep, err = ParseLifecycleDate(l.DeprecationDate); err != nil {
			return fmt.Errorf("deprecation_date: %w", err)
		}
	}
	if l.ExpirationDate != "" {
		if exp, err = ParseLifecycleDate(l.ExpirationDate); err != nil {
			return fmt.Errorf("expiration_date: %w", err)
		}
	}
	switch {
	case !dep.IsZero() && !exp.IsZero() && dep.After(exp):
		return fmt.Errorf("deprecation_date %s is after expiration_date %s", l.DeprecationDate, l.ExpirationDate)
	case l.Successor == id && id != "":
		return fmt.Errorf("successor: the model %q cannot succeed itself", id)
	case l.ServeSuccessor && l.Successor == "":
		return fmt.Errorf("serve_successor needs a successor")
	}
	return nil
}

// lifeTimes is a priced model's lifecycle as instants (zero: none).
type lifeTimes struct {
	deprecated time.Time
	retires    time.Time
}

// life parses m's lifecycle; a date that does not parse counts as absent
// (the config's are checked at start, the embedded catalog's by its test).
func life(m *Model, built time.Time) lifeTimes {
	var t lifeTimes
	if m.ExpirationDate != "" {
		t.retires, _ = ParseLifecycleDate(m.ExpirationDate)
	}
	if m.DeprecationDate != "" {
		t.deprecated, _ = ParseLifecycleDate(m.DeprecationDate)
	}
	if t.deprecated.IsZero() && !t.retires.IsZero() {
		t.deprecated = built
		if built.After(t.retires) {
			t.deprecated = t.retires
		}
	}
	return t
}

// DeprecatedAt is when the model was or will be deprecated (zero: never announced).
func (m *PricedModel) DeprecatedAt() time.Time { return m.life.deprecated }

// RetiresAt is when the model retires (zero: no date known).
func (m *PricedModel) RetiresAt() time.Time { return m.life.retires }

// Deprecated reports whether the model is deprecated but still sold at now.
func (m *PricedModel) Deprecated(now time.Time) bool {
	if m.life.deprecated.IsZero() || now.Before(m.life.deprecated) {
		return false
	}
	return !m.Retired(now)
}

// Retired reports whether the model is no longer sold at now.
func (m *PricedModel) Retired(now time.Time) bool {
	return !m.life.retires.IsZero() && !now.Before(m.life.retires)
}

// ExpirationDay is the retirement's day as OpenRouter writes expiration_date
// ("YYYY-MM-DD", UTC), or "" when none is known.
func (m *PricedModel) ExpirationDay() string {
	if m.life.retires.IsZero() {
		return ""
	}
	return m.life.retires.UTC().Format(time.DateOnly)
}

// DeprecationHeader is the Deprecation header's value (RFC 9745: a
// structured-field date, "@" and Unix seconds).
func (m *PricedModel) DeprecationHeader() string {
	return fmt.Sprintf("@%d", m.life.deprecated.Unix())
}

// httpDate is HTTP's IMF-fixdate (RFC 9110), net/http's TimeFormat.
const httpDate = "Mon, 02 Jan 2006 15:04:05 GMT"

// SunsetHeader is the Sunset header's value (RFC 8594: an HTTP-date), or ""
// when no retirement date is known.
func (m *PricedModel) SunsetHeader() string {
	if m.life.retires.IsZero() {
		return ""
	}
	return m.life.retires.UTC().Format(httpDate)
}

// DeprecationNote is the note a generation of the deprecated model carries.
func (m *PricedModel) DeprecationNote() string {
	s := fmt.Sprintf("The model %s is deprecated", m.ID)
	if d := m.ExpirationDay(); d != "" {
		s += " and retires on " + d
	}
	if m.Successor != "" {
		s += "; its successor is " + m.Successor
	}
	return s + "."
}

// SuccessorNote is the note a generation carries when a retired model was
// served by its successor.
func SuccessorNote(retired *PricedModel, served string) string {
	return fmt.Sprintf("The model %s retired on %s; the request was served by its successor %s.", retired.ID, retired.ExpirationDay(), served)
}

// ErrModelRetired is a call to a model that is no longer sold: 410, naming
// its successor when one is known.
func ErrModelRetired(m *PricedModel) *Error {
	msg := fmt.Sprintf("The model %q was retired on %s and is no longer served.", m.ID, m.ExpirationDay())
	if m.Successor != "" {
		msg += fmt.Sprintf(" Its successor is %q: call that model instead.", m.Successor)
	}
	e := newErr(410, TypeNotFound, "model_retired", "%s", msg).WithParam("model")
	return e
}
