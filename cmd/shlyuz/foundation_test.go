package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

func TestPublicModelsArePriced(t *testing.T) {
	var out struct {
		Data []struct {
			ID                     string   `json:"id"`
			ContextLength          int64    `json:"context_length"`
			InputModalities        []string `json:"input_modalities"`
			OutputModalities       []string `json:"output_modalities"`
			CreditsPer1KPrompt     float64  `json:"credits_per_1k_prompt"`
			CreditsPer1KCompletion float64  `json:"credits_per_1k_completion"`
		} `json:"data"`
	}
	if st := call(t, h.base, "GET", "/api/models", "", nil, &out); st != 200 {
		t.Fatalf("status %d", st)
	}
	priced := 0
	for _, m := range out.Data {
		if !strings.Contains(m.ID, "/") || len(m.OutputModalities) == 0 || len(m.InputModalities) == 0 {
			t.Fatalf("malformed model %+v", m)
		}
		if m.CreditsPer1KPrompt > 0 || m.CreditsPer1KCompletion > 0 {
			priced++
		}
		if m.ID == "test/model" && (m.CreditsPer1KPrompt != 1000*promptCredits || m.CreditsPer1KCompletion != 1000*completionCredits) {
			t.Fatalf("test/model priced %v/%v, want %d/%d", m.CreditsPer1KPrompt, m.CreditsPer1KCompletion, 1000*promptCredits, 1000*completionCredits)
		}
	}
	if priced < 300 {
		t.Fatalf("%d priced models, want at least 300", priced)
	}
}

func TestPublicPricingAndPlans(t *testing.T) {
	var p struct {
		Rate            float64 `json:"rate"`
		K               float64 `json:"K"`
		CreditsPerRuble int64   `json:"credits_per_ruble"`
		Currency        string  `json:"currency"`
	}
	if st := call(t, h.base, "GET", "/api/pricing", "", nil, &p); st != 200 || p.Rate != 100 || p.K != 1 || p.CreditsPerRuble != 100000 || p.Currency != "RUB" {
		t.Fatalf("pricing %d %+v", st, p)
	}
	var plans struct {
		Data []struct {
			ID             string  `json:"id"`
			PriceRubles    float64 `json:"price_rubles"`
			PackageCredits int64   `json:"package_credits"`
			Period         string  `json:"period"`
		} `json:"data"`
	}
	if st := call(t, h.base, "GET", "/api/plans", "", nil, &plans); st != 200 || len(plans.Data) == 0 {
		t.Fatalf("plans %d %+v", st, plans)
	}
	if p := plans.Data[0]; p.ID != "basic" || p.PriceRubles != 990 || p.PackageCredits != 50_000_000 || p.Period != "month" {
		t.Fatalf("plan %+v", p)
	}
}

func TestKeyedModelsFilterByOutput(t *testing.T) {
	_, key := account(t, h.base, 0, nil)
	for _, tc := range []struct {
		query string
		want  string
	}{{"", "text"}, {"?output_modalities=text", "text"}, {"?output_modalities=image", "image"}} {
		var out struct {
			Object string `json:"object"`
			Data   []struct {
				ID           string `json:"id"`
				Object       string `json:"object"`
				Architecture struct {
					OutputModalities []string `json:"output_modalities"`
				} `json:"architecture"`
				Pricing struct {
					Prompt float64 `json:"credits_per_1k_prompt"`
				} `json:"pricing"`
			} `json:"data"`
		}
		if st := call(t, h.base, "GET", "/api/v1/models"+tc.query, key, nil, &out); st != 200 || out.Object != "list" || len(out.Data) == 0 {
			t.Fatalf("%s: %d %s %d", tc.query, st, out.Object, len(out.Data))
		}
		for _, m := range out.Data {
			found := false
			for _, o := range m.Architecture.OutputModalities {
				found = found || o == tc.want
			}
			if !found || m.Object != "model" {
				t.Fatalf("%s: model %s outputs %v", tc.query, m.ID, m.Architecture.OutputModalities)
			}
		}
		if tc.want == "image" && len(out.Data) < 3 {
			t.Fatalf("only %d image models", len(out.Data))
		}
	}
}

func TestAuthErrors(t *testing.T) {
	accID, good := account(t, h.base, 1000, nil)
	var k struct {
		Key  string
		Data struct{ ID string }
	}
	call(t, h.base, "POST", "/api/admin/accounts/"+accID+"/keys", adminToken, map[string]any{"name": "to revoke"}, &k)
	revoked := k.Key
	if st := call(t, h.base, "GET", "/api/v1/key", revoked, nil, nil); st != 200 { // live in its actor before the revocation
		t.Fatalf("before revocation: %d", st)
	}
	if st := call(t, h.base, "DELETE", "/api/admin/keys/"+k.Data.ID, adminToken, nil, nil); st != 200 {
		t.Fatalf("revoke: %d", st)
	}
	// An expired key, written straight to the store: the API refuses past expiries.
	plain, hash := shlyuz.NewKeySecret()
	past := time.Now().Add(-time.Second)
	if err := h.in.store.CreateKey(context.Background(), shlyuz.Key{ID: "key-expired-" + hash[:8], AccountID: accID, Hash: hash,
		Label: shlyuz.MaskKey(plain), ExpiresAt: &past, CreatedAt: time.Now()}, 0); err != nil {
		t.Fatal(err)
	}
	unknown, _ := shlyuz.NewKeySecret()
	for _, tc := range []struct {
		name, header, code string
	}{
		{"missing", "", "missing_api_key"},
		{"not bearer", "Basic abc", "missing_api_key"},
		{"malformed", "Bearer sk-nope", "invalid_api_key"},
		{"unknown", "Bearer " + unknown, "invalid_api_key"},
		{"revoked", "Bearer " + revoked, "key_revoked"},
		{"expired", "Bearer " + plain, "key_expired"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, path := range []string{"/api/v1/key", "/api/v1/credits", "/api/v1/models"} {
				req, _ := http.NewRequest("GET", h.base+path, nil)
				if tc.header != "" {
					req.Header.Set("Authorization", tc.header)
				}
				assertError(t, req, 401, "authentication_error", tc.code)
			}
			req, _ := http.NewRequest("POST", h.base+"/api/v1/chat/completions",
				strings.NewReader(`{"model":"test/model","messages":[{"role":"user","content":"hi"}]}`))
			if tc.header != "" {
				req.Header.Set("Authorization", tc.header)
			}
			assertError(t, req, 401, "authentication_error", tc.code)
		})
	}
	if st := call(t, h.base, "GET", "/api/v1/key", good, nil, nil); st != 200 {
		t.Fatalf("good key: %d", st)
	}
}

func assertError(t *testing.T, req *http.Request, status int, typ, code string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e apiError
	if err := jsonDecode(resp.Body, &e); err != nil {
		t.Fatalf("%s %s: not the error body: %v", req.Method, req.URL.Path, err)
	}
	if resp.StatusCode != status || e.Error.Type != typ || e.Error.Code != code || e.Error.Message == "" {
		t.Fatalf("%s %s: %d %+v, want %d %s %s", req.Method, req.URL.Path, resp.StatusCode, e.Error, status, typ, code)
	}
}

func TestUnknownRouteIsErrorBody(t *testing.T) {
	req, _ := http.NewRequest("GET", h.base+"/api/v1/nope", nil)
	assertError(t, req, 404, "not_found_error", "not_found")
}

func TestKeyAndCreditsEndpoints(t *testing.T) {
	_, key := account(t, h.base, 12_345_678, map[string]any{"name": "capped", "limit": 5000, "limit_reset": "week"})
	var k keyView
	if st := call(t, h.base, "GET", "/api/v1/key", key, nil, &k); st != 200 {
		t.Fatalf("key %d", st)
	}
	if k.Data.Limit == nil || *k.Data.Limit != 5000 || k.Data.LimitRemaining == nil || *k.Data.LimitRemaining != 5000 ||
		k.Data.Usage != 0 || k.Data.LimitReset == nil || *k.Data.LimitReset != "weekly" {
		t.Fatalf("key view %+v", k.Data)
	}
	b := balance(t, h.base, key)
	if b.Data.BoughtCredits != 12_345_678 || b.Data.TotalCredits != 12_345_678 || b.Data.PackageCredits != 0 || b.Data.Rubles != "123.45678" {
		t.Fatalf("credits %+v", b.Data)
	}
}

func TestTopUpIsIdempotent(t *testing.T) {
	accID, key := account(t, h.base, 0, nil)
	path := "/api/admin/accounts/" + accID + "/topups"
	for i := 0; i < 3; i++ {
		var out struct {
			Duplicate bool `json:"duplicate"`
		}
		if st := call(t, h.base, "POST", path, adminToken, map[string]any{"rubles": "150.5", "idempotency_key": "pay-1"}, &out); st != 200 {
			t.Fatalf("top-up %d: %d", i, st)
		}
		if out.Duplicate != (i > 0) {
			t.Fatalf("top-up %d: duplicate=%v", i, out.Duplicate)
		}
	}
	if b := balance(t, h.base, key); b.Data.BoughtCredits != 15_050_000 {
		t.Fatalf("balance %d, want 15,050,000", b.Data.BoughtCredits)
	}
	var e apiError
	if st := call(t, h.base, "POST", path, adminToken, map[string]any{"rubles": "200", "idempotency_key": "pay-1"}, &e); st != 409 || e.Error.Code != "idempotency_conflict" {
		t.Fatalf("reused key with another amount: %d %+v", st, e)
	}
}

func TestPlanPackageIsSpentFirst(t *testing.T) {
	accID, key := account(t, h.base, 1000, nil)
	if st := call(t, h.base, "POST", "/api/admin/accounts/"+accID+"/plans", adminToken, map[string]any{"plan_id": "basic", "idempotency_key": "p1"}, nil); st != 200 {
		t.Fatalf("grant: %d", st)
	}
	b := balance(t, h.base, key)
	if b.Data.PackageCredits != 50_000_000 || b.Data.BoughtCredits != 1000 {
		t.Fatalf("after grant %+v", b.Data)
	}
	var r chatReply
	if st := call(t, h.base, "POST", "/api/v1/chat/completions", key, chatBody("test/model", false, 0), &r); st != 200 {
		t.Fatalf("chat %d", st)
	}
	after := balance(t, h.base, key)
	if after.Data.BoughtCredits != 1000 || after.Data.PackageCredits != 50_000_000-r.Usage.Credits || r.Usage.Credits <= 0 {
		t.Fatalf("spent %d: %+v", r.Usage.Credits, after.Data)
	}
}

func TestAdminRejectsBadInput(t *testing.T) {
	accID, _ := account(t, h.base, 0, nil)
	for _, tc := range []struct {
		name, method, path, token string
		body                      any
		status                    int
		code                      string
	}{
		{"no token", "POST", "/api/admin/accounts", "", `{"email":"a@b.c"}`, 401, "invalid_admin_token"},
		{"wrong token", "POST", "/api/admin/accounts", "nope", `{"email":"a@b.c"}`, 401, "invalid_admin_token"},
		{"malformed json", "POST", "/api/admin/accounts", adminToken, `{"email":`, 400, "invalid_json"},
		{"unknown field", "POST", "/api/admin/accounts", adminToken, `{"mail":"a@b.c"}`, 400, "invalid_value"},
		{"missing email", "POST", "/api/admin/accounts", adminToken, `{}`, 400, "missing_field"},
		{"bad email", "POST", "/api/admin/accounts", adminToken, `{"email":"nope"}`, 400, "invalid_value"},
		{"topup without key", "POST", "/api/admin/accounts/" + accID + "/topups", adminToken, `{"rubles":"1"}`, 400, "missing_field"},
		{"topup negative", "POST", "/api/admin/accounts/" + accID + "/topups", adminToken, `{"rubles":"-1","idempotency_key":"x"}`, 400, "invalid_value"},
		{"topup too precise", "POST", "/api/admin/accounts/" + accID + "/topups", adminToken, `{"rubles":"0.000001","idempotency_key":"x"}`, 400, "invalid_value"},
		{"topup hex", "POST", "/api/admin/accounts/" + accID + "/topups", adminToken, `{"rubles":"0x10","idempotency_key":"x"}`, 400, "invalid_value"},
		{"topup unknown account", "POST", "/api/admin/accounts/acc-nope/topups", adminToken, `{"rubles":"1","idempotency_key":"x"}`, 404, "not_found"},
		{"key bad reset", "POST", "/api/admin/accounts/" + accID + "/keys", adminToken, `{"limit_reset":"hourly"}`, 400, "invalid_value"},
		{"key negative limit", "POST", "/api/admin/accounts/" + accID + "/keys", adminToken, `{"limit":-5}`, 400, "invalid_value"},
		{"key name with a NUL", "POST", "/api/admin/accounts/" + accID + "/keys", adminToken, `{"name":"a\u0000b"}`, 400, "invalid_value"},
		{"key past expiry", "POST", "/api/admin/accounts/" + accID + "/keys", adminToken, `{"expires_at":"2001-01-01T00:00:00Z"}`, 400, "invalid_value"},
		{"key bad expiry", "POST", "/api/admin/accounts/" + accID + "/keys", adminToken, `{"expires_at":"tomorrow"}`, 400, "invalid_value"},
		{"pricing zero K", "PUT", "/api/admin/pricing", adminToken, `{"K":"0"}`, 400, "invalid_value"},
		{"revoke unknown", "DELETE", "/api/admin/keys/key-nope", adminToken, nil, 404, "not_found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e apiError
			if st := call(t, h.base, tc.method, tc.path, tc.token, tc.body, &e); st != tc.status || e.Error.Code != tc.code || e.Error.Message == "" {
				t.Fatalf("%d %+v, want %d %s", st, e.Error, tc.status, tc.code)
			}
		})
	}
}
