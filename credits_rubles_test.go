package shlyuz

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestRublesSign(t *testing.T) {
	for _, tc := range []struct {
		c    Credits
		want string
	}{
		{1_000_000, "10.00 ₽"}, {0, "0.00 ₽"}, {1, "0.00001 ₽"}, {12, "0.00012 ₽"}, {1_000, "0.01 ₽"},
		{123_456_789, "1234.56789 ₽"}, {150_000, "1.50 ₽"}, {-250_000, "-2.50 ₽"},
		{math.MaxInt64, "92233720368547.75807 ₽"}, {math.MinInt64, "-92233720368547.75808 ₽"},
	} {
		if got := RublesSign(tc.c); got != tc.want {
			t.Errorf("RublesSign(%d) = %q, want %q", tc.c, got, tc.want)
		}
	}
}

func TestMoneyErrorsSayRubles(t *testing.T) {
	for _, e := range []*Error{
		ErrInsufficientCredits(1_000_000, 0, 100, false),
		ErrInsufficientCredits(1_000_000, 10, 100, true),
		ErrInsufficientCreditsFor(1_000_000, 2_000_000),
	} {
		if !strings.Contains(e.Message, "1000000 credits (10.00 ₽)") {
			t.Errorf("%q gives no rubles beside the credits", e.Message)
		}
	}
	for _, e := range []*Error{ErrKeyLimitExceeded(5_000_000, 4_000_000, time.Time{}, 1, 2), ErrKeyLimitExceededCredits(5_000_000, 4_000_000, time.Time{}, 2_000_000)} {
		if !strings.Contains(e.Message, "5000000 credits (50.00 ₽), 4000000 (40.00 ₽) are spent") {
			t.Errorf("%q gives no rubles beside the credits", e.Message)
		}
	}
}
