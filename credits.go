package shlyuz

import "fmt"

// Credits is the unit every balance and charge is kept in. 1 ruble = 100,000 credits.
// No float ever holds a balance or a charge.
type Credits = int64

// CreditsPerRuble is how many credits one ruble buys.
const CreditsPerRuble Credits = 100_000

// RublesToCredits converts whole kopecks-exact rubles given as a decimal string
// ("150", "99.90") to credits. It refuses more than 5 decimals and negative amounts.
func RublesToCredits(rubles string) (Credits, error) {
	r, err := ParseDecimal(rubles)
	if err != nil {
		return 0, fmt.Errorf("rubles %q is not a decimal number of rubles", rubles)
	}
	if r.Sign() < 0 {
		return 0, fmt.Errorf("rubles must not be negative")
	}
	c := r.MulInt(CreditsPerRuble)
	if !c.IsInt() {
		return 0, fmt.Errorf("rubles %q has more precision than a credit", rubles)
	}
	v, ok := c.Int64()
	if !ok || v > MaxCredits {
		return 0, fmt.Errorf("rubles %q is too large: at most %s", rubles, FormatRubles(MaxCredits))
	}
	return v, nil
}

// FormatRubles renders credits as rubles with five decimals trimmed of trailing zeros.
func FormatRubles(c Credits) string {
	return NewDecimalFrac(c, CreditsPerRuble).String()
}

// RublesSign is credits as rubles for a person to read beside them in a
// message: at least two decimals (kopecks), more only where the credits hold
// a fraction of a kopeck, and the ruble sign ("10.00 ₽", "0.00012 ₽"). Exact.
func RublesSign(c Credits) string {
	sign := ""
	u := uint64(c)
	if c < 0 {
		sign, u = "-", uint64(-(c+1))+1
	}
	whole, frac := u/uint64(CreditsPerRuble), u%uint64(CreditsPerRuble)
	digits := fmt.Sprintf("%05d", frac)
	for len(digits) > 2 && digits[len(digits)-1] == '0' {
		digits = digits[:len(digits)-1]
	}
	return fmt.Sprintf("%s%d.%s ₽", sign, whole, digits)
}
