package shlyuz

import (
	"math"
	"testing"
)

// A total that would overflow saturates instead of wrapping below the parts.
func TestUsageTotalSaturates(t *testing.T) {
	tests := []struct {
		name string
		got  int64
	}{
		{"Normalized", Usage{PromptTokens: math.MaxInt64, CompletionTokens: 1}.Normalized().TotalTokens},
		{"WithDetails", WithDetails(math.MaxInt64, 1, nil, nil).TotalTokens},
		{"Normalized small", Usage{PromptTokens: 3, CompletionTokens: 4}.Normalized().TotalTokens},
	}
	want := []int64{math.MaxInt64, math.MaxInt64, 7}
	for i, tt := range tests {
		if tt.got != want[i] {
			t.Errorf("%s: total %d, want %d", tt.name, tt.got, want[i])
		}
	}
}
