package main

import (
	"encoding/json"
	"testing"
)

// `shlyuz admin create-key --management` makes a management key: it lists the
// account's API keys at /api/v1/keys, which an API key may not, and calls no model.
func TestManagementKeyFromTheCLI(t *testing.T) {
	acct, key := account(t, h.base, 1_000_000, map[string]any{"name": "api"})
	code, out := runShlyuz(t, "admin create-key "+acct+" --name keys --management", "SHLYUZ_URL="+h.base, "SHLYUZ_ADMIN_TOKEN="+adminToken)
	var mgmt struct {
		Key  string `json:"key"`
		Data struct {
			Management bool `json:"management"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(out), &mgmt); code != 0 || err != nil || !mgmt.Data.Management {
		t.Fatalf("create-key --management: exit %d, %v\n%s", code, err, out)
	}
	var list struct{ Data []struct{ Name string } }
	if st := call(t, h.base, "GET", "/api/v1/keys", mgmt.Key, nil, &list); st != 200 || len(list.Data) != 1 || list.Data[0].Name != "api" {
		t.Fatalf("GET /api/v1/keys with the management key: %d %+v", st, list)
	}
	var e apiError
	for _, tc := range []struct {
		key, method, path string
		body              any
		status            int
		code              string
	}{
		{key, "GET", "/api/v1/keys", nil, 403, "management_key_required"},
		{key, "POST", "/api/v1/keys", map[string]any{"name": "x"}, 403, "management_key_required"},
		{mgmt.Key, "POST", "/api/v1/chat/completions", map[string]any{"model": "test/model", "messages": []map[string]string{{"role": "user", "content": "Hi"}}}, 403, "management_key"},
		{mgmt.Key, "GET", "/api/v1/keys/0000", nil, 404, "not_found"},
		{mgmt.Key, "POST", "/api/v1/keys", map[string]any{"name": "x", "limit": -1}, 400, "invalid_value"},
		{mgmt.Key, "POST", "/api/v1/keys", map[string]any{"name": "x", "limit_reset": "monthly"}, 400, "invalid_value"},
	} {
		e = apiError{}
		if st := call(t, h.base, tc.method, tc.path, tc.key, tc.body, &e); st != tc.status || e.Error.Code != tc.code {
			t.Errorf("%s %s: %d %+v, want %d %s", tc.method, tc.path, st, e.Error, tc.status, tc.code)
		}
	}
}

// /api/v1/auth/key, the legacy path many OpenRouter clients still call, is /api/v1/key.
func TestLegacyAuthKeyPath(t *testing.T) {
	_, key := account(t, h.base, 1_000, map[string]any{"name": "legacy", "limit": 500})
	var a, b struct {
		Data struct {
			Label string `json:"label"`
			Limit int64  `json:"limit"`
		} `json:"data"`
	}
	if st := call(t, h.base, "GET", "/api/v1/auth/key", key, nil, &a); st != 200 || a.Data.Label == "" || a.Data.Limit != 500 {
		t.Fatalf("/auth/key: %d %+v", st, a)
	}
	if call(t, h.base, "GET", "/api/v1/key", key, nil, &b); a != b {
		t.Fatalf("/auth/key %+v, /key %+v", a, b)
	}
}
