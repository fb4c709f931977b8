package main

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// TestKeyAllowedModels: a key made by `shlyuz admin create-key
// --allowed-models test/` calls test/ models; any other model is a 403
// model_not_allowed in OpenAI's shape (chat, responses, embeddings, images,
// speech) and Anthropic's
// (/messages), with no charge, no generation and no ledger entry. GET
// /api/v1/key shows the list, /models/user lists only what it allows, and a
// bad list is a 400 naming allowed_models.
func TestKeyAllowedModels(t *testing.T) {
	acct, _ := account(t, h.base, 1_000_000, nil)
	code, out := runShlyuz(t, "admin create-key "+acct+" --name narrow --allowed-models test/,claude/model", "SHLYUZ_URL="+h.base, "SHLYUZ_ADMIN_TOKEN="+adminToken)
	var made struct {
		Key  string
		Data struct {
			AllowedModels []string `json:"allowed_models"`
		}
	}
	if err := json.Unmarshal([]byte(out), &made); code != 0 || err != nil || made.Key == "" {
		t.Fatalf("admin create-key --allowed-models: exit %d %v\n%s", code, err, out)
	}
	if got := strings.Join(made.Data.AllowedModels, ","); got != "test/,claude/model" {
		t.Fatalf("created key's allowed_models %q", got)
	}
	key := made.Key

	resp := postChat(t, h.base, key, chatBody("test/model", false, 0))
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("an allowed model: %d", resp.StatusCode)
	}
	waitFor(t, 10*time.Second, "the allowed call's generation", func() bool { return len(genModels(t, acct)) == 1 })
	before := balance(t, h.base, key).Data.TotalCredits

	refused := []struct {
		name, path string
		body       map[string]any
		anthropic  bool
	}{
		{"chat", "/api/v1/chat/completions", chatBody("tiny/model", false, 0), false},
		{"chat streamed", "/api/v1/chat/completions", chatBody("tiny/model", true, 0), false},
		{"chat, another provider", "/api/v1/chat/completions", chatBody("gemini/model", false, 0), false},
		{"models fallback list", "/api/v1/chat/completions", map[string]any{"model": "tiny/model", "models": []string{"tiny/model", "test/model"},
			"messages": []map[string]any{{"role": "user", "content": "hi"}}}, false},
		{"responses", "/api/v1/responses", map[string]any{"model": "tiny/model", "input": "hi"}, false},
		{"embeddings", "/api/v1/embeddings", map[string]any{"model": "embed/model", "input": "abcd"}, false},
		{"images", "/api/v1/images/generations", map[string]any{"model": "img/small", "prompt": "two dogs"}, false},
		{"speech", "/api/v1/audio/speech", map[string]any{"model": "tts/speech", "input": "hi", "voice": "alloy"}, false},
		{"messages", "/api/v1/messages", map[string]any{"model": "tiny/model", "max_tokens": 16,
			"messages": []map[string]any{{"role": "user", "content": "hi"}}}, true},
		{"messages streamed", "/api/v1/messages", map[string]any{"model": "tiny/model", "max_tokens": 16, "stream": true,
			"messages": []map[string]any{{"role": "user", "content": "hi"}}}, true},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			raw, _ := json.Marshal(c.body)
			req, _ := http.NewRequest("POST", h.base+c.path, strings.NewReader(string(raw)))
			req.Header.Set("Content-Type", "application/json")
			if c.anthropic {
				req.Header.Set("x-api-key", key)
				req.Header.Set("anthropic-version", "2023-06-01")
			} else {
				req.Header.Set("Authorization", "Bearer "+key)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var e struct {
				Type  string `json:"type"`
				Error struct {
					Type, Code string
				} `json:"error"`
			}
			_ = json.Unmarshal(body, &e)
			wantType := "permission_error"
			if resp.StatusCode != 403 || e.Error.Code != "model_not_allowed" || e.Error.Type != wantType || (c.anthropic && e.Type != "error") {
				t.Fatalf("%s: %d %s", c.path, resp.StatusCode, body)
			}
			if id := resp.Header.Get("X-Generation-Id"); id != "" {
				if _, err := h.in.store.Entry(t.Context(), "chg-"+id); !errors.Is(err, shlyuz.ErrNoRows) {
					t.Fatalf("a ledger entry for the refused call %s: %v", id, err)
				}
			}
		})
	}
	if after := balance(t, h.base, key).Data.TotalCredits; after != before {
		t.Fatalf("refused calls were charged: %d → %d", before, after)
	}
	if b := balance(t, h.base, key).Data.Reserved; b != 0 {
		t.Fatalf("refused calls left %d credits reserved", b)
	}
	// One more allowed call: once its generation is stored, the refused calls
	// (made before it) would have been too.
	resp = postChat(t, h.base, key, chatBody("test/other", false, 0))
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("a second allowed model: %d", resp.StatusCode)
	}
	waitFor(t, 10*time.Second, "the second allowed call's generation", func() bool { return len(genModels(t, acct)) >= 2 })
	if gens := genModels(t, acct); len(gens) != 2 {
		t.Fatalf("generations %v: refused calls were recorded", gens)
	}

	t.Run("GET /api/v1/key", func(t *testing.T) {
		var info struct {
			Data struct {
				AllowedModels []string `json:"allowed_models"`
			} `json:"data"`
		}
		if st := call(t, h.base, "GET", "/api/v1/key", key, nil, &info); st != 200 || strings.Join(info.Data.AllowedModels, ",") != "test/,claude/model" {
			t.Fatalf("GET /api/v1/key: %d %+v", st, info.Data)
		}
	})
	t.Run("models/user", func(t *testing.T) {
		var list struct{ Data []struct{ ID string } }
		if st := call(t, h.base, "GET", "/api/v1/models/user", key, nil, &list); st != 200 {
			t.Fatalf("/models/user: %d", st)
		}
		var ids []string
		for _, m := range list.Data {
			ids = append(ids, m.ID)
		}
		if got := strings.Join(ids, ","); !strings.Contains(got, "test/model") || !strings.Contains(got, "test/other") || !strings.Contains(got, "claude/model") {
			t.Fatalf("/models/user lists %s", got)
		}
		for _, id := range ids {
			if !strings.HasPrefix(id, "test/") && id != "claude/model" {
				t.Fatalf("/models/user lists %s, which the key may not call", id)
			}
		}
		var all struct{ Data []struct{ ID string } }
		if call(t, h.base, "GET", "/api/v1/models", key, nil, &all); len(all.Data) <= len(list.Data) {
			t.Fatalf("/models lists %d models, /models/user %d", len(all.Data), len(list.Data))
		}
	})
	t.Run("made by a management key", func(t *testing.T) {
		var mgmt struct{ Key string }
		if st := call(t, h.base, "POST", "/api/admin/accounts/"+acct+"/keys", adminToken, map[string]any{"name": "keys", "management": true}, &mgmt); st != 201 {
			t.Fatalf("management key: %d", st)
		}
		var made struct {
			Key  string
			Data struct {
				AllowedModels []string `json:"allowed_models"`
			}
		}
		if st := call(t, h.base, "POST", "/api/v1/keys", mgmt.Key, map[string]any{"name": "m", "allowed_models": []string{"test/other"}}, &made); st != 201 ||
			strings.Join(made.Data.AllowedModels, ",") != "test/other" {
			t.Fatalf("POST /api/v1/keys: %d %+v", st, made.Data)
		}
		resp := postChat(t, h.base, made.Key, chatBody("test/model", false, 0))
		resp.Body.Close()
		if resp.StatusCode != 403 {
			t.Fatalf("test/model with a key allowed test/other: %d", resp.StatusCode)
		}
	})
	t.Run("invalid lists", func(t *testing.T) {
		many := make([]string, 101)
		for i := range many {
			many[i] = "test/"
		}
		for _, list := range [][]string{{"test/", ""}, {"open ai/"}, many, {strings.Repeat("a", 201)}} {
			var e apiError
			st := call(t, h.base, "POST", "/api/admin/accounts/"+acct+"/keys", adminToken, map[string]any{"name": "bad", "allowed_models": list}, &e)
			if st != 400 || e.Error.Param == nil || *e.Error.Param != "allowed_models" {
				t.Fatalf("allowed_models %.40q: %d %+v", list, st, e.Error)
			}
		}
	})
}

// genModels is the models of the account's generations by the operator API.
func genModels(t *testing.T, acct string) []string {
	t.Helper()
	var acts struct{ Data []struct{ ID, Model string } }
	if st := call(t, h.base, "GET", "/api/admin/accounts/"+acct+"/activity", adminToken, nil, &acts); st != 200 {
		t.Fatalf("activity: %d", st)
	}
	var out []string
	for _, a := range acts.Data {
		out = append(out, a.Model)
	}
	return out
}
