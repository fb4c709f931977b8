package shlyuz

import "testing"

// The ids agents written for a provider send (Claude Code, Codex, Gemini
// CLI) name catalog models: the expectations are the providers' own ids as
// their APIs list them, dated and undated.
func TestCatalogResolvesProviderIDs(t *testing.T) {
	models, err := EmbeddedModels()
	if err != nil {
		t.Fatal(err)
	}
	cat := NewCatalog(models, Pricing{})
	for _, tc := range []struct{ asked, want string }{
		{"anthropic/claude-sonnet-4.5", "anthropic/claude-sonnet-4.5"},
		{"claude-sonnet-4-5-20250929", "anthropic/claude-sonnet-4.5"},
		{"claude-sonnet-4-5", "anthropic/claude-sonnet-4.5"},
		{"Claude-Sonnet-4-5", "anthropic/claude-sonnet-4.5"},
		{"anthropic/claude-sonnet-4-5", "anthropic/claude-sonnet-4.5"},
		{"claude-opus-4-8", "anthropic/claude-opus-4.8"},
		{"claude-opus-4-8-20261101", "anthropic/claude-opus-4.8"}, // a date the data files do not list yet
		{"claude-haiku-4-5", "anthropic/claude-haiku-4.5"},
		{"claude-haiku-4-5-20251001", "anthropic/claude-haiku-4.5"},
		{"gpt-5", "openai/gpt-5"},
		{"gpt-5-2025-08-07", "openai/gpt-5"},
		{"gemini-2.5-flash", "google/gemini-2.5-flash"},
		{"google/gemini-2.5-flash", "google/gemini-2.5-flash"},
		{"openai/claude-sonnet-4-5", ""}, // an alias under another provider's prefix names nothing
		{"claude-sonnet-9", ""},
		{"gpt-5-20250807x", ""},
	} {
		m, ok := cat.Get(tc.asked)
		got := ""
		if ok {
			got = m.ID
		}
		if got != tc.want {
			t.Errorf("Get(%q) = %q, want %q", tc.asked, got, tc.want)
		}
	}
}

// An alias two models claim names neither: an operator's model does not
// take a catalog model's name by accident.
func TestCatalogAliasClaimedTwice(t *testing.T) {
	cat := NewCatalog([]Model{
		{ID: "a/x", Aliases: []string{"shared", "only-x"}},
		{ID: "b/y", Aliases: []string{"shared"}},
	}, Pricing{})
	if _, ok := cat.Get("shared"); ok {
		t.Fatal("an alias of two models resolved")
	}
	if m, ok := cat.Get("only-x"); !ok || m.ID != "a/x" {
		t.Fatalf("only-x: %v %v", m, ok)
	}
}
