package shlyuz

import (
	"reflect"
	"testing"
)

// A multiplier of zero or one leaves the price as it is, without arithmetic;
// any other scales every part, rounding up.
func TestPriceScaleIdentity(t *testing.T) {
	long := Price{PromptMicro: 7, CompletionMicro: 11}
	p := Price{PromptMicro: 3, CompletionMicro: 5, CacheReadMicro: 1, RequestMicro: 9, LongAbove: 100, Long: &long}
	tests := []struct {
		f    Decimal
		want Price
	}{
		{Decimal{}, p},
		{NewDecimalFrac(1, 1), p},
		{NewDecimalFrac(3, 2), Price{PromptMicro: 5, CompletionMicro: 8, CacheReadMicro: 2, RequestMicro: 14, LongAbove: 100,
			Long: &Price{PromptMicro: 11, CompletionMicro: 17}}},
	}
	for _, tt := range tests {
		if got := p.Scale(tt.f); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Scale(%s) = %+v, want %+v", tt.f, got, tt.want)
		}
	}
	one := NewDecimalFrac(1, 1)
	if n := testing.AllocsPerRun(100, func() { _ = p.Scale(one) }); n != 0 {
		t.Errorf("Scale(1) allocates %v times, want 0", n)
	}
}
