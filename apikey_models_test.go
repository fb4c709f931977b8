package shlyuz

import (
	"strings"
	"testing"
)

func TestKeyAllows(t *testing.T) {
	cases := []struct {
		name    string
		allowed []string
		model   string
		want    bool
	}{
		{"no list allows any model", nil, "openai/gpt-4o", true},
		{"exact id", []string{"openai/gpt-4o"}, "openai/gpt-4o", true},
		{"exact id is not a prefix", []string{"openai/gpt-4o"}, "openai/gpt-4o-mini", false},
		{"provider prefix", []string{"anthropic/"}, "anthropic/claude-sonnet-4", true},
		{"provider prefix needs the slash", []string{"anthropic/"}, "anthropicx/model", false},
		{"prefix without slash is an id", []string{"anthropic"}, "anthropic/claude-sonnet-4", false},
		{"other model", []string{"test/", "openai/gpt-4o"}, "google/gemini-2.5-pro", false},
		{"second entry", []string{"test/", "openai/gpt-4o"}, "openai/gpt-4o", true},
		{"case matters", []string{"OpenAI/"}, "openai/gpt-4o", false},
		{"empty model", []string{"test/"}, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			k := Key{AllowedModels: c.allowed}
			if got := k.Allows(c.model); got != c.want {
				t.Errorf("Allows(%q) with %q = %v, want %v", c.model, c.allowed, got, c.want)
			}
			if err := k.CheckModel(c.model); (err == nil) != c.want {
				t.Errorf("CheckModel(%q) = %v", c.model, err)
			} else if err != nil && (err.Status != 403 || err.Code != "model_not_allowed") {
				t.Errorf("CheckModel(%q) = %d %s, want 403 model_not_allowed", c.model, err.Status, err.Code)
			}
		})
	}
}

func TestValidateAllowedModels(t *testing.T) {
	many := make([]string, 101)
	for i := range many {
		many[i] = "test/"
	}
	cases := []struct {
		name string
		list []string
		ok   bool
	}{
		{"empty list", nil, true},
		{"ids and prefixes", []string{"openai/gpt-4o", "test/"}, true},
		{"hundred entries", many[:100], true},
		{"hundred and one entries", many, false},
		{"empty entry", []string{"test/", ""}, false},
		{"space", []string{"openai/ gpt"}, false},
		{"tab", []string{"openai/\tgpt"}, false},
		{"200 bytes", []string{strings.Repeat("a", 200)}, true},
		{"201 bytes", []string{strings.Repeat("a", 201)}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := ValidateAllowedModels(c.list)
			if (err == nil) != c.ok {
				t.Fatalf("ValidateAllowedModels = %v, want ok=%v", err, c.ok)
			}
			if err != nil && (err.Status != 400 || err.Param == nil || *err.Param != "allowed_models") {
				t.Errorf("error = %d param %v, want 400 naming allowed_models", err.Status, err.Param)
			}
		})
	}
}

func TestSplitAllowedModels(t *testing.T) {
	cases := []struct {
		in   string
		want string
	}{
		{"", ""},
		{"a,b/", "a|b/"},
		{" a , ,b/ ", "a|b/"},
	}
	for _, c := range cases {
		if got := strings.Join(SplitAllowedModels(c.in), "|"); got != c.want {
			t.Errorf("SplitAllowedModels(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
