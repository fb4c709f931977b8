package shlyuz

import "testing"

// FuzzMoney: the parsers of amounts (decimals, rubles) never panic, and
// what they accept is consistent: a parsed decimal prints back to a value
// that parses equal; rubles convert to whole credits only when exact.
func FuzzMoney(f *testing.F) {
	for _, seed := range []string{"0", "1.5", "-2", "990.00", "0.000001", "1e5", "0x10", "1_000", " 1", "12345678901234567890.5"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if d, err := ParseDecimal(s); err == nil {
			again, err := ParseDecimal(d.String())
			if err != nil || again.Cmp(d) != 0 {
				t.Fatalf("%q parsed as %s, which parses back as %s (%v)", s, d, again, err)
			}
		}
		if c, err := RublesToCredits(s); err == nil && c < 0 {
			t.Fatalf("%q rubles = %d credits", s, c)
		}
	})
}
