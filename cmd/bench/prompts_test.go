package main

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestParsePromptSizes(t *testing.T) {
	for _, tc := range []struct {
		in    string
		want  []promptSize
		fails bool
	}{
		{"short,1KB,150KB,1MB", []promptSize{{"short", 0}, {"1KB", 1000}, {"150KB", 150_000}, {"1MB", 1_000_000}}, false},
		{" 20 , ", []promptSize{{"20", 20}}, false},
		{"", nil, false},
		{"0KB", nil, true}, {"33MB", nil, true}, {"lots", nil, true}, {"1GB", nil, true},
	} {
		got, err := parsePromptSizes(tc.in)
		if (err != nil) != tc.fails || len(got) != len(tc.want) {
			t.Fatalf("parsePromptSizes(%q) = %v, %v", tc.in, got, err)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Fatalf("parsePromptSizes(%q)[%d] = %v, want %v", tc.in, i, got[i], tc.want[i])
			}
		}
	}
}

// TestPromptBodyHoldsTheSize: the body is a chat request whose user message
// has exactly the asked number of characters.
func TestPromptBodyHoldsTheSize(t *testing.T) {
	for _, chars := range []int{1, 1000, 150_000} {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role, Content string
			} `json:"messages"`
			MaxTokens int `json:"max_tokens"`
		}
		if err := json.Unmarshal(promptBody("bench/instant", 64, chars), &req); err != nil {
			t.Fatal(err)
		}
		if req.Model != "bench/instant" || req.MaxTokens != 64 || len(req.Messages) != 2 || req.Messages[1].Role != "user" ||
			utf8.RuneCountInString(req.Messages[1].Content) != chars {
			t.Fatalf("%d chars: %+v", chars, req)
		}
	}
}
