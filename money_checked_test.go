package shlyuz

import (
	"math"
	"testing"
)

func TestCheckedMoney(t *testing.T) {
	tests := []struct {
		name string
		got  int64
		want int64
	}{
		{"product", MulChecked(3, 4), 12},
		{"product past int64 saturates", MulChecked(math.MaxInt64/2+1, 2), math.MaxInt64},
		{"a negative factor counts as zero", MulChecked(-5, 7), 0},
		{"sum", AddChecked(3, 4), 7},
		{"sum past int64 saturates", AddChecked(math.MaxInt64, 1), math.MaxInt64},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, tt.got, tt.want)
		}
	}
	if _, ok := AddSigned(math.MaxInt64, 1); ok {
		t.Error("AddSigned past MaxInt64 reported no overflow")
	}
	if _, ok := AddSigned(math.MinInt64, -1); ok {
		t.Error("AddSigned past MinInt64 reported no overflow")
	}
	if s, ok := AddSigned(-5, 3); !ok || s != -2 {
		t.Errorf("AddSigned(-5, 3) = %d %v", s, ok)
	}
	if CheckCredits("x", 1_000_000_000_000_000) != nil || CheckCredits("x", 1_000_000_000_000_001) == nil || CheckCredits("x", -1) == nil {
		t.Error("CheckCredits does not bound at 10^15")
	}
	if CheckPricing(Pricing{Rate: MustDecimal("1000000"), K: MustDecimal("1000")}) != nil ||
		CheckPricing(Pricing{Rate: MustDecimal("1000000.01"), K: MustDecimal("1")}) == nil ||
		CheckPricing(Pricing{Rate: MustDecimal("90"), K: MustDecimal("0")}) == nil {
		t.Error("CheckPricing bounds")
	}
	if _, err := RublesToCredits("10000000000.00001"); err == nil {
		t.Error("rubles past the bound accepted")
	}
}

// TestDerivePriceNeverNegative: a rate far past its bound (refused at the
// operator API) still never makes a negative or wrapped price.
func TestDerivePriceNeverNegative(t *testing.T) {
	p := DerivePrice(USDPrice{PromptPerMTok: MustDecimal("1000"), CompletionPerMTok: MustDecimal("1e20")}, Pricing{Rate: MustDecimal("1e12"), K: MustDecimal("1")})
	if p.PromptMicro <= 0 || p.CompletionMicro <= 0 {
		t.Fatalf("price %+v", p)
	}
	if c := p.Bill(Usage{PromptTokens: 1 << 40, CompletionTokens: 1 << 40}); c.Credits <= 0 {
		t.Fatalf("bill %d", c.Credits)
	}
}
