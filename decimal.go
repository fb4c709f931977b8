package shlyuz

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"
)

// Decimal is an exact rational number used for prices, the exchange rate and K.
// It is parsed from and printed as a plain decimal ("95.5", "0.00015"), never through a float.
type Decimal struct{ r big.Rat }

// ParseDecimal parses a plain decimal string such as "95.5" or "1e-6".
func ParseDecimal(s string) (Decimal, error) {
	var d Decimal
	s = strings.TrimSpace(s)
	if s == "" {
		return d, fmt.Errorf("empty number")
	}
	if !isPlainDecimal(s) {
		return d, fmt.Errorf("%q is not a decimal number", s)
	}
	if _, ok := d.r.SetString(s); !ok {
		return d, fmt.Errorf("%q is not a decimal number", s)
	}
	return d, nil
}

// isPlainDecimal reports whether s is [+-]digits[.digits][e[+-]digits]. It keeps
// out what big.Rat also accepts: fractions ("1/3"), base prefixes ("0x10",
// "0b101") and digit separators ("1_000").
func isPlainDecimal(s string) bool {
	i, digits := 0, 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		digits++
	}
	if i < len(s) && s[i] == '.' {
		for i++; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			digits++
		}
	}
	if digits == 0 {
		return false
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		exp := 0
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			exp++
		}
		if exp == 0 || exp > 2 { // at most e±99: a larger one only costs time
			return false
		}
	}
	return i == len(s)
}

// MustDecimal parses s or panics; for constants in code and tests.
func MustDecimal(s string) Decimal {
	d, err := ParseDecimal(s)
	if err != nil {
		panic(err)
	}
	return d
}

// NewDecimalFrac is num/den.
func NewDecimalFrac(num, den int64) Decimal {
	var d Decimal
	d.r.SetFrac64(num, den)
	return d
}

// Sign is -1, 0 or +1.
func (d Decimal) Sign() int { return d.r.Sign() }

// IsInt reports whether d is a whole number.
func (d Decimal) IsInt() bool { return d.r.IsInt() }

// Int64 returns d as an int64 when it is whole and fits.
func (d Decimal) Int64() (int64, bool) {
	if !d.r.IsInt() || !d.r.Num().IsInt64() {
		return 0, false
	}
	return d.r.Num().Int64(), true
}

// Float64 is d as the nearest float64, for display and media durations,
// never for money.
func (d Decimal) Float64() float64 {
	f, _ := d.r.Float64()
	return f
}

// Add is d+e.
func (d Decimal) Add(e Decimal) Decimal {
	var out Decimal
	out.r.Add(&d.r, &e.r)
	return out
}

// Mul is d×e.
func (d Decimal) Mul(e Decimal) Decimal {
	var out Decimal
	out.r.Mul(&d.r, &e.r)
	return out
}

// MulInt is d×n.
func (d Decimal) MulInt(n int64) Decimal {
	var out, m Decimal
	m.r.SetInt64(n)
	out.r.Mul(&d.r, &m.r)
	return out
}

// Quo is d/n; n must not be zero.
func (d Decimal) Quo(n int64) Decimal {
	var out, m Decimal
	m.r.SetInt64(n)
	out.r.Quo(&d.r, &m.r)
	return out
}

// Ceil rounds up to a whole number (towards +inf).
func (d Decimal) Ceil() int64 {
	num, den := d.r.Num(), d.r.Denom()
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	return q.Int64()
}

// Cmp compares d and e.
func (d Decimal) Cmp(e Decimal) int { return d.r.Cmp(&e.r) }

// String prints d as a plain decimal, exactly when it has a finite decimal
// form (every parsed decimal has), with trailing zeros trimmed; a rational
// without one (a third) is rounded to 12 fractional digits.
func (d Decimal) String() string {
	if d.r.IsInt() {
		return d.r.Num().String()
	}
	s := d.r.FloatString(fractionDigits(d.r.Denom()))
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

// fractionDigits is how many fractional digits print 1/den exactly: max(a, b)
// for den = 2^a·5^b, else 12.
func fractionDigits(den *big.Int) int {
	twos := int(den.TrailingZeroBits())
	rest := new(big.Int).Rsh(den, uint(twos))
	fives, five, m := 0, big.NewInt(5), new(big.Int)
	for rest.Cmp(big.NewInt(1)) > 0 {
		q, r := new(big.Int).QuoRem(rest, five, m)
		if r.Sign() != 0 {
			return 12
		}
		rest = q
		fives++
	}
	return max(twos, fives)
}

// MarshalJSON writes d as a JSON number.
func (d Decimal) MarshalJSON() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalJSON reads a JSON number or a string holding one.
func (d *Decimal) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	v, err := ParseDecimal(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// MarshalText and UnmarshalText let YAML and flags carry decimals as text.
func (d Decimal) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses text as a decimal.
func (d *Decimal) UnmarshalText(b []byte) error { return d.UnmarshalJSON(b) }

var _ json.Marshaler = Decimal{}
