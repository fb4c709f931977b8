package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestOperatorInputErrorsNameTheField: a wrong value in an operator request is
// invalid_value with the field in param, its message says it once, and an
// idempotency conflict shows no internal id.
func TestOperatorInputErrorsNameTheField(t *testing.T) {
	accID, _ := account(t, h.base, 0, nil)
	acct := "/api/admin/accounts/" + accID
	if st := call(t, h.base, "POST", acct+"/topups", adminToken, map[string]any{"rubles": "10", "idempotency_key": "msg-1"}, nil); st != 200 {
		t.Fatalf("seed top-up: %d", st)
	}
	cases := []struct {
		name, path string
		body       any
		code       string
		param      string
		status     int
	}{
		{"rubles not a number", "/topups", map[string]any{"rubles": "ten", "idempotency_key": "msg-2"}, "invalid_value", "rubles", 400},
		{"credits a string", "/topups", map[string]any{"credits": "ten", "idempotency_key": "msg-3"}, "invalid_value", "credits", 400},
		{"idempotency key a number", "/topups", map[string]any{"credits": 5, "idempotency_key": 7}, "invalid_value", "idempotency_key", 400},
		{"unknown field", "/topups", map[string]any{"credits": 5, "idempotency_key": "msg-4", "amount": 3}, "invalid_value", "amount", 400},
		{"not JSON", "/topups", "{credits: 5", "invalid_json", "", 400},
		{"limit a string", "/keys", map[string]any{"limit": "abc"}, "invalid_value", "limit", 400},
		{"limit_reset without limit", "/keys", map[string]any{"limit_reset": "day"}, "invalid_value", "limit_reset", 400},
		{"expires_at not a date", "/keys", map[string]any{"expires_at": "next year"}, "invalid_value", "expires_at", 400},
		{"expires_at past", "/keys", map[string]any{"expires_at": "2001-01-01"}, "invalid_value", "expires_at", 400},
		{"idempotency conflict", "/topups", map[string]any{"rubles": "11", "idempotency_key": "msg-1"}, "idempotency_conflict", "", 409},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var e apiError
			if st := call(t, h.base, "POST", acct+tc.path, adminToken, tc.body, &e); st != tc.status || e.Error.Code != tc.code {
				t.Fatalf("status %d code %q (%s), want %d %q", st, e.Error.Code, e.Error.Message, tc.status, tc.code)
			}
			param := e.param()
			if param != tc.param {
				t.Fatalf("param %q, want %q (%s)", param, tc.param, e.Error.Message)
			}
			if tc.param != "" && strings.HasPrefix(e.Error.Message, tc.param+": "+tc.param) {
				t.Fatalf("doubled prefix: %q", e.Error.Message)
			}
			if strings.Contains(e.Error.Message, "msg-1") || strings.Contains(e.Error.Message, accID) || strings.Contains(e.Error.Message, "topup") {
				t.Fatalf("message leaks an internal id: %q", e.Error.Message)
			}
		})
	}
	// a date is accepted as an expiry
	var made struct {
		Data struct {
			ExpiresAt time.Time `json:"expires_at"`
		} `json:"data"`
	}
	if st := call(t, h.base, "POST", acct+"/keys", adminToken, map[string]any{"expires_at": "2099-06-30"}, &made); st != 201 || !made.Data.ExpiresAt.Equal(time.Date(2099, 6, 30, 0, 0, 0, 0, time.UTC)) {
		t.Fatalf("key with a date expiry: %d %v", st, made.Data.ExpiresAt)
	}
}

// TestShapesAgree: limit_reset is null when unset wherever a key is shown, the
// top-up reply and the account detail name the balance alike, /api/pricing has
// no zero date, and GET /api/v1/key says when a periodic limit resets.
func TestShapesAgree(t *testing.T) {
	accID, plainKey := account(t, h.base, 0, nil)
	acct := "/api/admin/accounts/" + accID
	var top map[string]json.RawMessage
	if st := call(t, h.base, "POST", acct+"/topups", adminToken, map[string]any{"credits": 500, "idempotency_key": "shape-1"}, &top); st != 200 {
		t.Fatalf("top-up %d", st)
	}
	var detail map[string]json.RawMessage
	if st := call(t, h.base, "GET", acct, adminToken, nil, &detail); st != 200 {
		t.Fatalf("account %d", st)
	}
	var tb, db struct {
		BoughtCredits int64 `json:"bought_credits"`
	}
	if json.Unmarshal(top["balance"], &tb) != nil || json.Unmarshal(detail["balance"], &db) != nil || tb.BoughtCredits != 500 || db.BoughtCredits != 500 {
		t.Fatalf("balance named differently: top-up %s, account %s", top["balance"], detail["balance"])
	}
	var keys []map[string]json.RawMessage
	if json.Unmarshal(detail["keys"], &keys) != nil || len(keys) != 1 || string(keys[0]["limit_reset"]) != "null" {
		t.Fatalf("unset limit_reset in the account's keys: %s", detail["keys"])
	}
	var info struct {
		Data map[string]json.RawMessage `json:"data"`
	}
	if st := call(t, h.base, "GET", "/api/v1/key", plainKey, nil, &info); st != 200 || string(info.Data["limit_reset"]) != "null" || string(info.Data["limit_resets_at"]) != "null" {
		t.Fatalf("key without a limit: %d %v", st, info.Data)
	}

	var made struct{ Key string }
	if st := call(t, h.base, "POST", acct+"/keys", adminToken, map[string]any{"limit": 100, "limit_reset": "week"}, &made); st != 201 {
		t.Fatalf("weekly key %d", st)
	}
	if st := call(t, h.base, "GET", "/api/v1/key", made.Key, nil, &info); st != 200 || string(info.Data["limit_reset"]) != `"weekly"` /* OpenRouter's key shape */ {
		t.Fatalf("weekly key: %d %v", st, info.Data)
	}
	var resets time.Time
	if err := json.Unmarshal(info.Data["limit_resets_at"], &resets); err != nil || !resets.After(time.Now()) || resets.After(time.Now().AddDate(0, 0, 8)) {
		t.Fatalf("limit_resets_at %s", info.Data["limit_resets_at"])
	}
	if wd := resets.In(moscow(t)).Weekday(); wd != time.Monday {
		t.Fatalf("a weekly limit resets on %v, want Monday", wd)
	}

	var pricing map[string]json.RawMessage
	if st := call(t, h.base, "GET", "/api/pricing", "", nil, &pricing); st != 200 {
		t.Fatalf("pricing %d", st)
	}
	if at, ok := pricing["updated_at"]; ok && (string(at) == "null" || strings.HasPrefix(string(at), `"0001-`)) {
		t.Fatalf("pricing updated_at %s", at)
	}
}

func moscow(t *testing.T) *time.Location {
	loc, err := time.LoadLocation("Europe/Moscow")
	if err != nil {
		t.Fatal(fmt.Errorf("time zone data: %w", err))
	}
	return loc
}
