package shlyuz

import "testing"

func TestReasoningBudget(t *testing.T) {
	tests := []struct {
		name            string
		effort          string
		ceiling, lo, hi int64
		want            int64
		ok              bool
	}{
		{"medium is half", "medium", 10000, 1024, 32000, 5000, true},
		{"high is four fifths", "high", 10000, 128, 32768, 8000, true},
		{"xhigh", "xhigh", 10000, 128, 32768, 9500, true},
		{"low", "low", 10000, 128, 32768, 2000, true},
		{"minimal", "minimal", 10000, 128, 32768, 1000, true},
		{"raised to the least", "low", 2000, 1024, 32000, 1024, true},
		{"cut to the most", "xhigh", 100000, 1024, 32000, 32000, true},
		{"no whole token", "minimal", 9, 128, 32768, 0, true},
		{"no ceiling", "high", 0, 1024, 32000, 0, true},
		{"unknown effort", "extreme", 10000, 1024, 32000, 0, false},
		{"none is not a share", "none", 10000, 1024, 32000, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := ReasoningBudget(tt.effort, tt.ceiling, tt.lo, tt.hi)
			if got != tt.want || ok != tt.ok {
				t.Errorf("ReasoningBudget(%q, %d, %d, %d) = %d, %v; want %d, %v", tt.effort, tt.ceiling, tt.lo, tt.hi, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestReasoningOff(t *testing.T) {
	no, yes := false, true
	tests := []struct {
		name string
		r    Reasoning
		want bool
	}{
		{"empty", Reasoning{}, false},
		{"effort none", Reasoning{Effort: "none"}, true},
		{"enabled false", Reasoning{Effort: "high", Enabled: &no}, true},
		{"enabled true", Reasoning{Enabled: &yes}, false},
	}
	for _, tt := range tests {
		if got := tt.r.Off(); got != tt.want {
			t.Errorf("%s: Off() = %v, want %v", tt.name, got, tt.want)
		}
	}
}
