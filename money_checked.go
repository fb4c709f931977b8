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
