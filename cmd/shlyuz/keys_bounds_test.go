package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// managementKey makes an account with credits and a management key with
// the extra fields of body; it returns the account and the key.
func managementKey(t *testing.T, base string, body map[string]any) (string, string) {
	t.Helper()
	if body == nil {
		body = map[string]any{}
	}
	body["name"], body["management"] = "keys", true
	return account(t, base, 1_000_000, body)
}

type orKeyView struct {
	Data struct {
		Hash          string   `json:"hash"`
		Name          string   `json:"name"`
		Disabled      bool     `json:"disabled"`
		Limit         *int64   `json:"limit"`
		LimitReset    *string  `json:"limit_reset"`
		ExpiresAt     *string  `json:"expires_at"`
		AllowedModels []string `json:"allowed_models"`
	} `json:"data"`
	Key string `json:"key"`
}

// An account holds at most max_keys_per_account keys: past it a key is
// refused with a 403 in the API's error shape, a deleted key makes room,
// the list comes 100 a page from the store, and the database's WAL stays
// bounded. A gateway of its own, with a cap of 130, so that the run stays
// short; the management key is one of the 130.
func TestKeyCapPagesAndBoundedDisk(t *testing.T) {
	const keyCap = 130
	base, err := os.ReadFile(h.config)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "cap.yaml")
	if err := os.WriteFile(config, append(base, []byte(fmt.Sprintf("\nmax_keys_per_account: %d\n", keyCap))...), 0o600); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "cap.db")
	c := startChildWith(t, "sqlite://"+db, config, "SHLYUZ_ADMIN_TOKEN="+adminToken)
	_, mgmt := managementKey(t, c.base, nil)

	const asked = keyCap + 20
	statuses := make([]int, asked)
	codes := make([]string, asked)
	var wg sync.WaitGroup
	sem := make(chan struct{}, 8)
	for i := range asked {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			var e apiError
			statuses[i] = call(t, c.base, "POST", "/api/v1/keys", mgmt, map[string]any{"name": fmt.Sprintf("k%03d", i)}, &e)
			codes[i] = e.Error.Code
		}()
	}
	wg.Wait()
	made, refused := 0, 0
	for i, st := range statuses {
		switch {
		case st == 201:
			made++
		case st == 403 && codes[i] == "too_many_keys":
			refused++
		default:
			t.Fatalf("key %d: %d %s", i, st, codes[i])
		}
	}
	if made != keyCap-1 || refused != asked-made {
		t.Fatalf("%d keys made and %d refused of %d asked; want %d made (the management key is the cap's last)", made, refused, asked, keyCap-1)
	}

	var page struct {
		Data []struct {
			Hash string `json:"hash"`
			Name string `json:"name"`
		} `json:"data"`
	}
	seen := map[string]bool{}
	var first string
	for _, tc := range []struct{ offset, want int }{{0, 100}, {100, keyCap - 1 - 100}, {keyCap, 0}} {
		page.Data = nil
		if st := call(t, c.base, "GET", "/api/v1/keys?offset="+strconv.Itoa(tc.offset), mgmt, nil, &page); st != 200 || len(page.Data) != tc.want {
			t.Fatalf("GET /api/v1/keys?offset=%d: %d, %d keys; want %d", tc.offset, st, len(page.Data), tc.want)
		}
		for _, k := range page.Data {
			if seen[k.Hash] {
				t.Fatalf("key %s on two pages", k.Name)
			}
			seen[k.Hash] = true
			if first == "" {
				first = k.Hash
			}
		}
	}
	var del struct{ Deleted bool }
	if st := call(t, c.base, "DELETE", "/api/v1/keys/"+first, mgmt, nil, &del); st != 200 || !del.Deleted {
		t.Fatalf("delete: %d", st)
	}
	for i, want := range []int{201, 403} { // the room one deleted key made, then the cap again
		if st := call(t, c.base, "POST", "/api/v1/keys", mgmt, map[string]any{"name": "again"}, nil); st != want {
			t.Fatalf("after a delete, creation %d: %d, want %d", i, st, want)
		}
	}

	wal, err := os.Stat(db + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	if wal.Size() > 64<<20 {
		t.Fatalf("the WAL is %d bytes after %d keys; want at most 64 MiB", wal.Size(), keyCap)
	}
	t.Logf("%d keys made, %d refused; WAL %d bytes; gateway RSS %s", made, refused, wal.Size(), rss(c.cmd.Process.Pid))
}

// rss is the process's resident set as /proc says it ("?" elsewhere).
func rss(pid int) string {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "?"
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

// A key a management key makes or changes stays within the management key:
// its ceiling within what the maker's has left, its period no shorter, its
// models within the maker's, its expiry no later. What it leaves out is the
// maker's; what it asks beyond is a 403 naming the field.
func TestKeyMadeByAManagementKeyStaysWithinIt(t *testing.T) {
	expires := time.Now().Add(time.Hour).UTC().Truncate(time.Second)
	_, mgmt := managementKey(t, h.base, map[string]any{"limit": 1_000, "allowed_models": []string{"test/model"},
		"expires_at": expires.Format(time.RFC3339)})
	for _, tc := range []struct {
		name  string
		body  map[string]any
		param string
	}{
		{"a ceiling of 10^15", map[string]any{"limit": 1_000_000_000_000_000}, "limit"},
		{"a ceiling above the maker's", map[string]any{"limit": 1_001}, "limit"},
		{"a daily ceiling under a maker's that never resets", map[string]any{"limit": 10, "limit_reset": "daily"}, "limit_reset"},
		{"every model", map[string]any{"allowed_models": []string{"test/"}}, "allowed_models"},
		{"another model", map[string]any{"allowed_models": []string{"test/other"}}, "allowed_models"},
		{"a later expiry", map[string]any{"expires_at": expires.Add(time.Hour).Format(time.RFC3339)}, "expires_at"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.body["name"] = "child"
			var e apiError
			if st := call(t, h.base, "POST", "/api/v1/keys", mgmt, tc.body, &e); st != 403 || e.Error.Param == nil || *e.Error.Param != tc.param {
				t.Fatalf("%d %+v; want a 403 naming %s", st, e.Error, tc.param)
			}
		})
	}
	var child orKeyView
	if st := call(t, h.base, "POST", "/api/v1/keys", mgmt, map[string]any{"name": "child"}, &child); st != 201 {
		t.Fatalf("a child asking nothing: %d", st)
	}
	d := child.Data
	if d.Limit == nil || *d.Limit != 1_000 || fmt.Sprint(d.AllowedModels) != "[test/model]" || d.ExpiresAt == nil {
		t.Fatalf("a child asking nothing has limit %v, models %v, expiry %v; want the maker's", d.Limit, d.AllowedModels, d.ExpiresAt)
	}
	if at, err := time.Parse(time.RFC3339, *d.ExpiresAt); err != nil || !at.Equal(expires) {
		t.Fatalf("the child expires at %s, the maker at %s", *d.ExpiresAt, expires)
	}
	var e apiError
	if st := call(t, h.base, "PATCH", "/api/v1/keys/"+d.Hash, mgmt, map[string]any{"limit": 5_000}, &e); st != 403 || e.Error.Param == nil || *e.Error.Param != "limit" {
		t.Fatalf("PATCH a child's limit above the maker's: %d %+v", st, e.Error)
	}
	if st := call(t, h.base, "PATCH", "/api/v1/keys/"+d.Hash, mgmt, map[string]any{"limit": nil}, &child); st != 200 || child.Data.Limit == nil || *child.Data.Limit != 1_000 {
		t.Fatalf("PATCH a child's limit to none under a limited maker: %d, limit %v; want the maker's 1000", st, child.Data.Limit)
	}
	if st := call(t, h.base, "POST", "/api/v1/chat/completions", child.Key, map[string]any{"model": "test/other",
		"messages": []map[string]string{{"role": "user", "content": "Hi"}}}, &e); st != 403 || e.Error.Code != "model_not_allowed" {
		t.Fatalf("the child calling a model outside its maker's: %d %+v", st, e.Error)
	}
}

// PATCH /api/v1/keys/{hash} as OpenRouter's: rename, disable and enable
// again, a new limit and limit_reset, include_byok_in_limit accepted; a
// limit_reset needs a limit; a deleted key is gone.
func TestPatchKeyAsOpenRouter(t *testing.T) {
	_, mgmt := managementKey(t, h.base, nil)
	var k orKeyView
	if st := call(t, h.base, "POST", "/api/v1/keys", mgmt, map[string]any{"name": "a", "limit": 100_000}, &k); st != 201 {
		t.Fatalf("create: %d", st)
	}
	hash, plain := k.Data.Hash, k.Key
	chat := func() (int, string) {
		var e apiError
		st := call(t, h.base, "POST", "/api/v1/chat/completions", plain, map[string]any{"model": "test/model",
			"messages": []map[string]string{{"role": "user", "content": "Hi"}}}, &e)
		return st, e.Error.Code
	}
	listed := func(all bool) bool {
		var page struct{ Data []struct{ Hash string } }
		q := ""
		if all {
			q = "?include_disabled=true"
		}
		call(t, h.base, "GET", "/api/v1/keys"+q, mgmt, nil, &page)
		for _, x := range page.Data {
			if x.Hash == hash {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		name   string
		body   any
		status int
		check  func(v orKeyView) bool
		param  string
	}{
		{"rename", map[string]any{"name": "b"}, 200, func(v orKeyView) bool { return v.Data.Name == "b" }, ""},
		{"disable", map[string]any{"disabled": true}, 200, func(v orKeyView) bool { return v.Data.Disabled }, ""},
		{"enable again", map[string]any{"disabled": false}, 200, func(v orKeyView) bool { return !v.Data.Disabled }, ""},
		{"daily", map[string]any{"limit_reset": "daily"}, 200, func(v orKeyView) bool { return v.Data.LimitReset != nil && *v.Data.LimitReset == "daily" }, ""},
		{"no limit on a daily key", map[string]any{"limit": nil}, 400, nil, "limit"},
		{"a new limit that never resets", map[string]any{"limit": 500, "limit_reset": nil}, 200,
			func(v orKeyView) bool { return v.Data.Limit != nil && *v.Data.Limit == 500 && v.Data.LimitReset == nil }, ""},
		{"include_byok_in_limit", map[string]any{"include_byok_in_limit": true}, 200, func(v orKeyView) bool { return true }, ""},
		{"a bad period", map[string]any{"limit_reset": "hourly"}, 400, nil, "limit_reset"},
		{"an empty name", map[string]any{"name": ""}, 400, nil, "name"},
		{"not JSON", "{", 400, nil, ""},
	} {
		var v orKeyView
		var e apiError
		out := any(&v)
		if tc.status != 200 {
			out = &e
		}
		st := call(t, h.base, "PATCH", "/api/v1/keys/"+hash, mgmt, tc.body, out)
		if st != tc.status || (tc.check != nil && !tc.check(v)) || (tc.param != "" && (e.Error.Param == nil || *e.Error.Param != tc.param)) {
			t.Fatalf("%s: %d %+v %+v", tc.name, st, v.Data, e.Error)
		}
		switch tc.name {
		case "disable":
			if st, code := chat(); st != 401 || code != "key_disabled" || listed(false) || !listed(true) {
				t.Fatalf("disabled: chat %d %s, listed %v, listed with include_disabled %v", st, code, listed(false), listed(true))
			}
		case "enable again":
			if st, code := chat(); st != 200 || !listed(false) {
				t.Fatalf("enabled again: chat %d %s, listed %v", st, code, listed(false))
			}
		}
	}
	if st := call(t, h.base, "DELETE", "/api/v1/keys/"+hash, mgmt, nil, nil); st != 200 {
		t.Fatalf("delete: %d", st)
	}
	for _, method := range []string{"GET", "PATCH"} {
		if st := call(t, h.base, method, "/api/v1/keys/"+hash, mgmt, map[string]any{"disabled": false}, nil); st != 404 {
			t.Fatalf("%s a deleted key: %d, want 404", method, st)
		}
	}
	if st, code := chat(); st != 401 || code != "key_revoked" || listed(true) {
		t.Fatalf("deleted: chat %d %s, listed %v", st, code, listed(true))
	}
}

// A video job belongs to the key that made it: another key of the account
// replaying its Idempotency-Key makes a job of its own, and cannot see,
// list, download or delete the first.
func TestVideoJobsBelongToTheirKey(t *testing.T) {
	acct, a := account(t, h.base, 100_000_000, nil)
	var second struct{ Key string }
	if st := call(t, h.base, "POST", "/api/admin/accounts/"+acct+"/keys", adminToken, map[string]any{"name": "second"}, &second); st != 201 {
		t.Fatalf("second key: %d", st)
	}
	b := second.Key
	create := func(key string) videoView {
		var v videoView
		if st := callHeader(t, h.base, "POST", "/api/v1/videos", key, map[string]string{"Idempotency-Key": "shared-" + acct}, `{"model":"vid/model","prompt":"same"}`, &v); st != 202 || v.ID == "" {
			t.Fatalf("create: %d %+v", st, v)
		}
		return v
	}
	va, vb := create(a), create(b)
	if va.ID == vb.ID {
		t.Fatalf("key b replaying key a's Idempotency-Key reached a's job %s", va.ID)
	}
	if again := create(a); again.ID != va.ID {
		t.Fatalf("key a replaying its own Idempotency-Key: %s, want %s", again.ID, va.ID)
	}
	waitVideo(t, h.base, a, va.ID)
	waitVideo(t, h.base, b, vb.ID)
	for _, p := range []string{"/api/v1/videos/" + va.ID, "/api/v1/videos/" + va.ID + "/content"} {
		var e apiError
		if st := call(t, h.base, "GET", p, b, nil, &e); st != 404 {
			t.Fatalf("key b GET %s: %d %+v", p, st, e)
		}
	}
	if st := call(t, h.base, "DELETE", "/api/v1/videos/"+va.ID, b, nil, nil); st != 404 {
		t.Fatalf("key b DELETE a's job: %d", st)
	}
	for key, want := range map[string]string{a: va.ID, b: vb.ID} {
		var list struct{ Data []struct{ ID string } }
		if st := call(t, h.base, "GET", "/api/v1/videos?limit=100", key, nil, &list); st != 200 || len(list.Data) != 1 || list.Data[0].ID != want {
			t.Fatalf("list: %d %+v; want only %s", st, list.Data, want)
		}
	}
	if resp, _ := getContent(t, h.base, a, va.ID, ""); resp.StatusCode != 200 {
		t.Fatalf("key a downloading its own video: %d", resp.StatusCode)
	}
}
