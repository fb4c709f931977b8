package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAdminListsAccounts runs `shlyuz admin` against the running gateway as an
// operator would: it makes an account, tops it up and gives it a key; a
// request goes through with the key; then `admin accounts` names the account,
// `admin account` its key (never the secret) and `admin activity` the
// generation with its exact credits.
func TestAdminListsAccounts(t *testing.T) {
	admin := func(args string) string {
		t.Helper()
		code, out := runShlyuz(t, "admin "+args, "SHLYUZ_URL="+h.base, "SHLYUZ_ADMIN_TOKEN="+adminToken)
		if code != 0 {
			t.Fatalf("shlyuz admin %s: exit %d\n%s", args, code, out)
		}
		return out
	}
	decode := func(args, out string, v any) {
		t.Helper()
		if err := json.Unmarshal([]byte(out), v); err != nil {
			t.Fatalf("shlyuz admin %s printed no JSON: %v\n%s", args, err, out)
		}
	}
	email := fmt.Sprintf("cli%d-%d@example.com", counter.Add(1), time.Now().UnixNano())
	var acc struct{ ID, Email string }
	decode("create-account", admin("create-account "+email), &acc)
	if acc.ID == "" || acc.Email != email {
		t.Fatalf("create-account: %+v", acc)
	}
	admin("topup " + acc.ID + " --credits 1000000 --idempotency-key cli-" + acc.ID)
	var key struct {
		Key  string                    `json:"key"`
		Data struct{ ID, Name string } `json:"data"`
	}
	out := admin("create-key " + acc.ID + " --name cli-key")
	if err := json.Unmarshal([]byte(out), &key); err != nil || !strings.HasPrefix(key.Key, "sk-shz-") || key.Data.ID == "" || key.Data.Name != "cli-key" {
		t.Fatalf("create-key printed %s (%v)", out, err)
	}
	keyID := key.Data.ID
	var resp struct {
		ID    string
		Usage struct{ Credits int64 }
	}
	if st := call(t, h.base, "POST", "/api/v1/chat/completions", key.Key,
		map[string]any{"model": "test/model", "messages": []map[string]string{{"role": "user", "content": "Hi from the CLI test"}}}, &resp); st != 200 || resp.Usage.Credits <= 0 {
		t.Fatalf("chat with the key: %d %+v", st, resp)
	}
	waitFor(t, 10*time.Second, "the generation in the store", func() bool {
		var acts struct{ Data []struct{ ID string } }
		return call(t, h.base, "GET", "/api/admin/accounts/"+acc.ID+"/activity", adminToken, nil, &acts) == 200 && len(acts.Data) == 1
	})

	t.Run("accounts", func(t *testing.T) {
		for offset := 0; ; offset += 500 {
			args := fmt.Sprintf("accounts --limit 500 --offset %d", offset)
			out := admin(args)
			var page struct{ Data []struct{ ID, Email string } }
			decode(args, out, &page)
			for _, a := range page.Data {
				if a.ID == acc.ID {
					if a.Email != email {
						t.Fatalf("admin accounts lists %s as %q; want %q", acc.ID, a.Email, email)
					}
					return
				}
			}
			if len(page.Data) < 500 {
				t.Fatalf("admin accounts never lists %s (%s)", acc.ID, email)
			}
		}
	})
	t.Run("account and its keys", func(t *testing.T) {
		out := admin("account " + acc.ID)
		var got struct {
			ID, Email string
			Keys      []struct {
				ID, Name string
			}
		}
		decode("account", out, &got)
		if got.ID != acc.ID || got.Email != email || len(got.Keys) != 1 || got.Keys[0].Name != "cli-key" || got.Keys[0].ID != keyID {
			t.Fatalf("admin account %s: %+v\n%s", acc.ID, got, out)
		}
		if strings.Contains(out, key.Key) {
			t.Fatal("admin account shows the key's secret")
		}
	})
	t.Run("activity", func(t *testing.T) {
		out := admin("activity " + acc.ID)
		var got struct {
			Data []struct {
				ID, Model string
				KeyID     string `json:"key_id"`
				Credits   int64
			}
		}
		decode("activity", out, &got)
		if len(got.Data) != 1 || got.Data[0].ID != resp.ID || got.Data[0].Credits != resp.Usage.Credits || got.Data[0].KeyID != keyID ||
			!strings.Contains(out, `"model": "test/model"`) || !strings.Contains(out, strconv.FormatInt(resp.Usage.Credits, 10)) {
			t.Fatalf("admin activity %s: %+v; want %s for %d credits\n%s", acc.ID, got, resp.ID, resp.Usage.Credits, out)
		}
	})
	t.Run("an unknown account", func(t *testing.T) {
		for _, args := range []string{"account no-such-account", "activity no-such-account"} {
			code, out := runShlyuz(t, "admin "+args, "SHLYUZ_URL="+h.base, "SHLYUZ_ADMIN_TOKEN="+adminToken)
			if code != 1 || !strings.Contains(out, "404") {
				t.Errorf("admin %s: exit %d\n%s", args, code, out)
			}
		}
	})
}
