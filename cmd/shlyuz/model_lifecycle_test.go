package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// lifecycleTimes are the test models' lifecycle dates, relative to the
// start of the tests: life/deprecated retires in 30 days; life/retired and
// life/served retired an hour ago, the latter served by its successor.
var lifecycleTimes = struct{ deprecated, retires, retired time.Time }{
	deprecated: time.Now().Add(-24 * time.Hour).UTC().Truncate(time.Second),
	retires:    time.Now().Add(30 * 24 * time.Hour).UTC().Truncate(time.Second),
	retired:    time.Now().Add(-time.Hour).UTC().Truncate(time.Second),
}

func lifecycleTestConfig() string {
	lt := lifecycleTimes
	return fmt.Sprintf(`lifecycle:
  - {model: life/deprecated, deprecation_date: %q, expiration_date: %q, successor: test/model}
  - {model: life/retired, expiration_date: %q, successor: test/model}
  - {model: life/served, expiration_date: %q, successor: test/model, serve_successor: true}
`, lt.deprecated.Format(time.RFC3339), lt.retires.Format(time.RFC3339), lt.retired.Format(time.RFC3339), lt.retired.Format(time.RFC3339))
}

// post sends a JSON body and returns the response with its body read.
func post(t *testing.T, path, key string, body any, headers ...string) (*http.Response, []byte) {
	t.Helper()
	hs := map[string]string{"Authorization": "Bearer " + key}
	for i := 0; i+1 < len(headers); i += 2 {
		hs[headers[i]] = headers[i+1]
	}
	return postWith(t, path, body, hs)
}

// litellmShutdown is LiteLLM's deprecation_date of a model, read from the
// data file the catalog was generated from.
func litellmShutdown(t *testing.T, key string) string {
	t.Helper()
	raw, err := os.ReadFile("../../../shared/data/litellm-model-prices.json")
	if err != nil {
		t.Skipf("the reference data is not beside the repository: %v", err)
	}
	var table map[string]json.RawMessage
	if err := json.Unmarshal(raw, &table); err != nil {
		t.Fatal(err)
	}
	var rec struct {
		DeprecationDate string `json:"deprecation_date"`
	}
	if err := json.Unmarshal(table[key], &rec); err != nil || rec.DeprecationDate == "" {
		t.Fatalf("LiteLLM's %s: %v, no deprecation_date", key, err)
	}
	return rec.DeprecationDate
}

func TestModelLifecycle(t *testing.T) {
	_, key := account(t, h.base, 100_000_000, nil)
	chat := func(model string) map[string]any {
		return map[string]any{"model": model, "max_tokens": 16, "messages": []map[string]any{{"role": "user", "content": "hi"}}}
	}

	t.Run("models lists", func(t *testing.T) {
		var v1 struct {
			Data []struct {
				ID             string  `json:"id"`
				ExpirationDate *string `json:"expiration_date"`
				Successor      string  `json:"successor"`
			} `json:"data"`
		}
		if st := call(t, h.base, "GET", "/api/v1/models", key, nil, &v1); st != 200 {
			t.Fatalf("/api/v1/models: %d", st)
		}
		seen := map[string]bool{}
		for _, m := range v1.Data {
			seen[m.ID] = true
			switch m.ID {
			case "life/deprecated":
				if m.ExpirationDate == nil || *m.ExpirationDate != lifecycleTimes.retires.Format(time.DateOnly) || m.Successor != "test/model" {
					t.Errorf("life/deprecated: expiration_date %v, successor %q", m.ExpirationDate, m.Successor)
				}
			case "test/model":
				if m.ExpirationDate != nil {
					t.Errorf("test/model: expiration_date %q, want null", *m.ExpirationDate)
				}
			}
		}
		for _, id := range []string{"life/retired", "life/served", "anthropic/claude-sonnet-4"} {
			if seen[id] {
				t.Errorf("/api/v1/models lists the retired %s", id)
			}
		}
		if !seen["life/deprecated"] || !seen["anthropic/claude-sonnet-4.5"] {
			t.Errorf("/api/v1/models lacks a live model")
		}
		var pub struct {
			Data []struct {
				ID             string `json:"id"`
				ExpirationDate string `json:"expiration_date"`
			} `json:"data"`
		}
		if st := call(t, h.base, "GET", "/api/models", "", nil, &pub); st != 200 {
			t.Fatalf("/api/models: %d", st)
		}
		found := false
		for _, m := range pub.Data {
			if m.ID == "life/retired" || m.ID == "life/served" {
				t.Errorf("/api/models lists the retired %s", m.ID)
			}
			if m.ID == "life/deprecated" {
				found = m.ExpirationDate == lifecycleTimes.retires.Format(time.DateOnly)
			}
		}
		if !found {
			t.Error("/api/models: life/deprecated without its expiration_date")
		}
	})

	t.Run("deprecated: headers and a note", func(t *testing.T) {
		resp, body := post(t, "/api/v1/chat/completions", key, chat("life/deprecated"))
		if resp.StatusCode != 200 {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		if got, want := resp.Header.Get("Deprecation"), "@"+strconv.FormatInt(lifecycleTimes.deprecated.Unix(), 10); got != want {
			t.Errorf("Deprecation %q, want %q", got, want)
		}
		sunset, err := http.ParseTime(resp.Header.Get("Sunset"))
		if err != nil || !sunset.Equal(lifecycleTimes.retires) {
			t.Errorf("Sunset %q (%v), want %s", resp.Header.Get("Sunset"), err, lifecycleTimes.retires)
		}
		if l := resp.Header.Get("Link"); !strings.Contains(l, "test%2Fmodel") && !strings.Contains(l, "test/model") || !strings.Contains(l, `rel="successor-version"`) {
			t.Errorf("Link %q", l)
		}
		note := generationNote(t, key, resp.Header.Get("X-Generation-Id"))
		if !strings.Contains(note, "deprecated") || !strings.Contains(note, lifecycleTimes.retires.Format(time.DateOnly)) || !strings.Contains(note, "test/model") {
			t.Errorf("generation note %q", note)
		}
		resp, _ = post(t, "/api/v1/chat/completions", key, chat("test/model"))
		if resp.Header.Get("Deprecation") != "" || resp.Header.Get("Sunset") != "" {
			t.Errorf("a live model's reply carries Deprecation %q, Sunset %q", resp.Header.Get("Deprecation"), resp.Header.Get("Sunset"))
		}
	})

	t.Run("retired: 410 naming the successor", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		shutdown := litellmShutdown(t, "claude-sonnet-4-20250514")
		cases := []struct {
			model, successor, day string
		}{
			{"life/retired", "test/model", lifecycleTimes.retired.Format(time.DateOnly)},
			{"anthropic/claude-sonnet-4", "anthropic/claude-sonnet-4.5", shutdown},
		}
		for _, c := range cases {
			resp, body := post(t, "/api/v1/chat/completions", key, chat(c.model))
			var e apiError
			if resp.StatusCode != 410 || json.Unmarshal(body, &e) != nil || e.Error.Code != "model_retired" ||
				!strings.Contains(e.Error.Message, c.successor) || !strings.Contains(e.Error.Message, c.day) {
				t.Errorf("chat %s: %d %s", c.model, resp.StatusCode, body)
			}
			resp, body = post(t, "/api/v1/messages", key, chat(c.model), "anthropic-version", "2023-06-01")
			var ae struct {
				Type  string `json:"type"`
				Error struct {
					Type    string `json:"type"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if resp.StatusCode != 410 || json.Unmarshal(body, &ae) != nil || ae.Type != "error" || ae.Error.Type != "not_found_error" ||
				!strings.Contains(ae.Error.Message, c.successor) {
				t.Errorf("messages %s: %d %s", c.model, resp.StatusCode, body)
			}
			var one apiError
			if st := call(t, h.base, "GET", "/api/v1/models/"+c.model+"/endpoints", key, nil, &one); st != 410 {
				t.Errorf("endpoints of %s: %d", c.model, st)
			}
		}
		if after := balance(t, h.base, key).Data.TotalCredits; after != before {
			t.Errorf("refused calls cost %d credits", before-after)
		}
	})

	t.Run("retired: served by the successor", func(t *testing.T) {
		resp, body := post(t, "/api/v1/chat/completions", key, chat("life/served"))
		var out struct{ Model string }
		if resp.StatusCode != 200 || json.Unmarshal(body, &out) != nil || out.Model != "test/model" {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		note := generationNote(t, key, resp.Header.Get("X-Generation-Id"))
		if !strings.Contains(note, "life/served") || !strings.Contains(note, "test/model") {
			t.Errorf("generation note %q", note)
		}
	})
}

// generationNote waits for the generation's record and returns its note.
func generationNote(t *testing.T, key, id string) string {
	t.Helper()
	var g struct {
		Data struct {
			Note string `json:"note"`
		} `json:"data"`
	}
	waitFor(t, 10*time.Second, "the generation record", func() bool {
		return call(t, h.base, "GET", "/api/v1/generation?id="+id, key, nil, &g) == 200
	})
	return g.Data.Note
}
