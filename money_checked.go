package shlyuz

import (
	"math"
	"math/big"
)

// MulChecked is a×b for non-negative amounts, saturated at math.MaxInt64
// instead of wrapping: money never wraps to a negative number. A negative
// operand counts as zero.
func MulChecked(a, b int64) int64 {
	if a <= 0 || b <= 0 {
		return 0
	}
	if a > math.MaxInt64/b {
		return math.MaxInt64
	}
	return a * b
}

// AddChecked is a+b for non-negative amounts, saturated at math.MaxInt64.
func AddChecked(a, b int64) int64 {
	a, b = max(a, 0), max(b, 0)
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// AddSigned is a+b, reporting false when the sum does not fit an int64 (a
// balance or a ledger sum: either sign).
func AddSigned(a, b int64) (int64, bool) {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		return 0, false
	}
	return s, true
}

// CeilChecked rounds up to a whole number, reporting false when it does not fit an int64.
func (d Decimal) CeilChecked() (int64, bool) {
	num, den := d.r.Num(), d.r.Denom()
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	if m.Sign() > 0 {
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		return 0, false
	}
	return q.Int64(), true
}

// MaxCredits bounds every amount of money the gateway takes in (a top-up, a
// key's ceiling, a plan's package) and every balance: 10^15 credits, ten
// billion rubles. Below it, no sum of a balance and an amount can overflow.
const MaxCredits Credits = 1_000_000_000_000_000

// MaxRate and MaxK bound the pricing (rubles per dollar, the coefficient):
// a price past them is a typo, and below them every derived price is checkable.
var (
	MaxRate = NewDecimalFrac(1_000_000, 1)
	MaxK    = NewDecimalFrac(1_000, 1)
)

// CheckCredits is a 400 naming the field when an amount is negative or above MaxCredits.
func CheckCredits(field string, v Credits) *Error {
	if v < 0 || v > MaxCredits {
		return ErrInvalidValue(field, "%s must be between 0 and %d credits (%s rubles).", field, MaxCredits, FormatRubles(MaxCredits))
	}
	return nil
}

// CheckPricing is a 400 when the rate or K is not positive or above its bound.
func CheckPricing(p Pricing) *Error {
	if p.Rate.Sign() <= 0 || p.Rate.Cmp(MaxRate) > 0 {
		return ErrInvalidValue("rate", "rate must be above zero and at most %s rubles per dollar.", MaxRate)
	}
	if p.K.Sign() <= 0 || p.K.Cmp(MaxK) > 0 {
		return ErrInvalidValue("K", "K must be above zero and at most %s.", MaxK)
	}
	return nil
}
