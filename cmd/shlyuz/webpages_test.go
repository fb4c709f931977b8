package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// accountIDOf finds the account of an email through the operator API.
func (g *webGateway) accountIDOf(t *testing.T, email string) string {
	t.Helper()
	var accts struct {
		Data []struct{ ID, Email string } `json:"data"`
	}
	if st := call(t, g.base, "GET", "/api/admin/accounts?limit=500", adminToken, nil, &accts); st != 200 {
		t.Fatalf("admin accounts: %d", st)
	}
	for _, a := range accts.Data {
		if a.Email == email {
			return a.ID
		}
	}
	t.Fatalf("no account %s", email)
	return ""
}

var (
	newKeyRE   = regexp.MustCompile(`value="(sk-shz-v1-[0-9a-f]{64})"`)
	keyFormsRE = regexp.MustCompile(`action="/account/keys/(key-[^"/]+)/revoke"`)
)

// createKey makes a key on the keys page and returns the secret and the key's id.
func createKey(t *testing.T, u *browserless, form url.Values) (string, string) {
	t.Helper()
	u.get("/account/keys")
	before := keyFormsRE.FindAllStringSubmatch(u.last, -1)
	st, body := u.post("/account/keys", form)
	m := newKeyRE.FindStringSubmatch(body)
	if st != 201 || m == nil {
		t.Fatalf("create key %v: %d\n%s", form, st, body)
	}
	after := keyFormsRE.FindAllStringSubmatch(body, -1)
	if len(after) != len(before)+1 {
		t.Fatalf("%d keys listed after creating one, %d before", len(after), len(before))
	}
	return m[1], after[0][1] // newest first
}

// chatWith calls the API with a key through the openai-go SDK.
func sdkChat(key, base, model string) (*openai.ChatCompletion, error) {
	client := openai.NewClient(option.WithBaseURL(base+"/api/v1"), option.WithAPIKey(key), option.WithMaxRetries(0))
	return client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: model, Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hello!")}})
}

// TestWebAreaPages: the language, the landing page's search, cookies, keys (expiry, ceiling edited
// and enforced at once, revoke), activity (filters, pages, the chart, CSV) and throttling per address.
func TestWebAreaPages(t *testing.T) {
	g := startWebGateway(t)

	t.Run("Russian by default, English on request", func(t *testing.T) {
		get := func(path, acceptLang string, jar http.CookieJar) string {
			req, _ := http.NewRequest("GET", g.base+path, nil)
			if acceptLang != "" {
				req.Header.Set("Accept-Language", acceptLang)
			}
			resp, err := (&http.Client{Jar: jar}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			return string(b)
		}
		for _, tc := range []struct{ path, acceptLang, want, notWant string }{
			{"/", "", `<html lang="ru">`, "Models and prices"},
			{"/", "", "Модели и цены", ""},
			{"/", "de-DE,de;q=0.9", "Модели и цены", ""},
			{"/", "en-GB,en;q=0.9", "Models and prices", "Модели"},
			{"/?lang=en", "ru", `<html lang="en">`, "Модели"},
			{"/login?lang=ru", "en", "Войти", "Log in</button>"},
		} {
			if body := get(tc.path, tc.acceptLang, nil); !strings.Contains(body, tc.want) || (tc.notWant != "" && strings.Contains(body, tc.notWant)) {
				t.Errorf("%s (Accept-Language %q): want %q, not %q", tc.path, tc.acceptLang, tc.want, tc.notWant)
			}
		}
		jar, _ := cookiejar.New(nil)
		get("/?lang=en", "", jar)
		if body := get("/register", "ru", jar); !strings.Contains(body, "Create account") {
			t.Error("?lang=en is not remembered")
		}
	})

	t.Run("landing lists models with prices, searchable", func(t *testing.T) {
		u := g.user(t)
		_, all := u.get("/?provider=test") // the provider filter: the catalog runs to many pages
		// test/model: $1 and $2 per million tokens at 100 ₽ per dollar, K 1.
		// Its card: the context with grouped digits, each price per million tokens, to the kopeck.
		if !regexp.MustCompile(`<code class="id">test/model</code>(?:[^<]|<[^l]|<l[^i])*?<dd class="context">100,000</dd>\s*` +
			`<dt>Input</dt><dd class="price">100.00\x{a0}₽ per 1M tokens</dd><dt>Output</dt><dd class="price">200.00\x{a0}₽ per 1M tokens</dd>`).MatchString(all) {
			t.Fatalf("test/model's card with its prices is missing:\n%s", all)
		}
		// The whole list runs to pages of 48 cards, with links between them.
		if _, first := u.get("/"); strings.Count(first, `<li data-modality=`) != 48 || !strings.Contains(first, `href="/?page=2"`) {
			t.Fatalf("the landing's first page: %d cards, a link to page 2: %v", strings.Count(first, `<li data-modality=`), strings.Contains(first, `href="/?page=2"`))
		}
		if _, second := u.get("/?page=2"); strings.Count(second, `<li data-modality=`) != 48 || !strings.Contains(second, `href="/?page=1"`) {
			t.Fatal("the landing's second page lacks its cards or the link back")
		}
		// A model's page: its prices and how to call it; an unknown model is the area's 404.
		if st, page := u.get("/models/test/model"); st != 200 || !strings.Contains(page, "Input</dt><dd class=\"price\">100.00\u00a0₽ per 1M tokens") ||
			!strings.Contains(page, "served by this gateway") || !strings.Contains(page, "/api/v1/chat/completions \\\n  -d &#39;{&#34;model&#34;: &#34;test/model&#34;") {
			t.Fatalf("test/model's page: %d\n%s", st, page)
		}
		if st, page := u.get("/models/no/such-model"); st != 404 || !strings.Contains(page, "<h1>Page not found</h1>") {
			t.Fatalf("an unknown model's page: %d\n%s", st, page)
		}
		// A deprecated model is marked with its retirement day and successor; a retired one is gone.
		day := lifecycleTimes.retires.Format(time.DateOnly)
		if st, page := u.get("/models/life/deprecated"); st != 200 || !strings.Contains(page, "retires "+day) || !strings.Contains(page, `href="/models/test/model"`) {
			t.Fatalf("a deprecated model's page: %d\n%s", st, page)
		}
		if _, list := u.get("/?q=life/"); !strings.Contains(list, "deprecated · retires "+day) || strings.Contains(list, "life/retired") || strings.Contains(list, "life/served") {
			t.Fatalf("the landing's lifecycle marks:\n%s", list)
		}
		if st, _ := u.get("/models/life/retired"); st != 404 {
			t.Fatalf("a retired model's page: %d", st)
		}
		_, some := u.get("/?q=TEST/OTH")
		if !strings.Contains(some, `<code class="id">test/other</code>`) || strings.Contains(some, `<code class="id">test/model</code>`) ||
			!strings.Contains(some, `value="TEST/OTH"`) {
			t.Fatalf("search for test/oth:\n%s", some)
		}
		if _, none := u.get("/?q=%3Cscript%3E"); strings.Contains(none, "<script>") || strings.Contains(none, `<code class="id">test/model</code>`) {
			t.Fatal("a search for <script> is echoed raw or matches everything")
		}
	})

	t.Run("404: an HTML page under the web area, JSON for API clients", func(t *testing.T) {
		for _, tc := range []struct {
			path, accept string
			html         bool
		}{
			{"/account/no-such-page", "", true}, // redirected to log in first, then…
			{"/no/such/page", "text/html,application/xhtml+xml", true},
			{"/no/such/page", "application/json", false},
			{"/api/v1/no-such-route", "text/html", false},
		} {
			req, _ := http.NewRequest("GET", g.base+tc.path, nil)
			req.Header.Set("Accept", tc.accept)
			req.Header.Set("Accept-Language", "en")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			isHTML := strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html")
			switch {
			case tc.path == "/account/no-such-page":
				if resp.Request.URL.Path != "/login" {
					t.Errorf("%s signed out ends at %s; want /login", tc.path, resp.Request.URL.Path)
				}
			case resp.StatusCode != 404 || isHTML != tc.html || (tc.html && !strings.Contains(string(b), "<h1>Page not found</h1>")):
				t.Errorf("%s (Accept %q): %d %s, HTML %v; want 404, HTML %v:\n%s", tc.path, tc.accept, resp.StatusCode, resp.Header.Get("Content-Type"), isHTML, tc.html, b)
			}
		}
	})

	u, email := g.signUp(t)
	accID := g.accountIDOf(t, email)
	if st, body := u.get("/account/no-such-page"); st != 404 || !strings.Contains(body, "<h1>Page not found</h1>") || !strings.Contains(body, `href="/account/"`) {
		t.Errorf("a signed-in 404 under /account/: %d\n%s", st, body)
	}
	if st := call(t, g.base, "POST", "/api/admin/accounts/"+accID+"/topups", adminToken,
		map[string]any{"rubles": "100", "idempotency_key": "pages-topup"}, nil); st != 200 {
		t.Fatalf("operator top-up: %d", st)
	}

	t.Run("session cookie: HttpOnly, SameSite, not Secure over plain HTTP", func(t *testing.T) {
		v := g.user(t)
		v.get("/login")
		req, _ := http.NewRequest("POST", g.base+"/login", strings.NewReader(url.Values{"email": {email}, "password": {"correct horse battery"}, "csrf": {v.csrf()}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		v.c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		resp, err := v.c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		var session string
		for _, c := range resp.Header.Values("Set-Cookie") {
			if strings.HasPrefix(c, "shz_session=") {
				session = c
			}
		}
		if resp.StatusCode != 303 || !strings.Contains(session, "HttpOnly") || !strings.Contains(session, "SameSite=Lax") || strings.Contains(strings.ToLower(session), "secure") {
			t.Fatalf("login: %d, Set-Cookie %q", resp.StatusCode, session)
		}
	})

	t.Run("keys: expiry, ceiling edited and enforced at once, revoke", func(t *testing.T) {
		tomorrow := time.Now().AddDate(0, 0, 2).Format("2006-01-02")
		key, id := createKey(t, u, url.Values{"name": {"edited"}, "limit": {"50,5"}, "reset": {"day"}, "expires": {tomorrow}})
		row := keyRow(t, u, id)
		if !strings.Contains(row, "50.50\u00a0₽ / day") || !strings.Contains(row, tomorrow) || !strings.Contains(row, ">0.00\u00a0₽<") || !strings.Contains(row, ">0\u00a0credits<") {
			t.Fatalf("the new key's row: %s", row)
		}
		if _, err := sdkChat(key, g.base, "test/model"); err != nil {
			t.Fatal(err)
		}
		waitFor(t, 10*time.Second, "the key's spend in the period", func() bool { return !strings.Contains(keyRow(t, u, id), ">0\u00a0credits<") })

		u.get("/account/keys")
		for _, bad := range []string{"-1", "1.001", "ten"} {
			u.get("/account/keys")
			if st, body := u.post("/account/keys/"+id+"/limit", url.Values{"limit": {bad}}); st != 400 || !strings.Contains(body, "at most two decimals") {
				t.Errorf("ceiling %q: %d", bad, st)
			}
		}
		u.get("/account/keys")
		if st, _ := u.post("/account/keys/"+id+"/limit", url.Values{"limit": {"0"}}); st != 200 || !strings.Contains(keyRow(t, u, id), "0.00\u00a0₽ / day") {
			t.Fatalf("lower the ceiling to 0: %d", st)
		}
		if _, err := sdkChat(key, g.base, "test/model"); err == nil || !strings.Contains(err.Error(), "403") {
			t.Fatalf("a call over the lowered ceiling: %v", err)
		}
		u.get("/account/keys")
		if st, _ := u.post("/account/keys/"+id+"/limit", url.Values{"limit": {""}}); st != 200 || !strings.Contains(keyRow(t, u, id), `data-label="Ceiling">—</td>`) {
			t.Fatalf("remove the ceiling: %d\n%s", st, keyRow(t, u, id))
		}
		if _, err := sdkChat(key, g.base, "test/model"); err != nil {
			t.Fatalf("a call without a ceiling: %v", err)
		}

		other, _ := g.signUp(t)
		other.get("/account/keys")
		for _, path := range []string{"/account/keys/" + id + "/limit", "/account/keys/" + id + "/revoke", "/account/keys/key-none/revoke"} {
			if st, _ := other.post(path, url.Values{"limit": {"1"}}); st != 404 {
				t.Errorf("another account's %s: %d", path, st)
			}
		}
		u.get("/account/keys")
		if st, _ := u.post("/account/keys/"+id+"/revoke", url.Values{}); st != 200 || !strings.Contains(keyRow(t, u, id), "revoked") {
			t.Fatalf("revoke: %d", st)
		}
		if _, err := sdkChat(key, g.base, "test/model"); err == nil || !strings.Contains(err.Error(), "401") {
			t.Fatalf("a revoked key: %v", err)
		}
		u.get("/account/keys")
		if st, _ := u.post("/account/keys/"+id+"/limit", url.Values{"limit": {"5"}}); st != 409 {
			t.Fatalf("the ceiling of a revoked key: %d", st)
		}
		for _, tc := range []struct {
			form url.Values
			want string
		}{
			{url.Values{"name": {""}}, "1 to 100 characters"},
			{url.Values{"name": {"a\x00b"}}, "1 to 100 characters"},
			{url.Values{"name": {"x"}, "expires": {"2001-01-01"}}, "in the future"},
			{url.Values{"name": {"x"}, "reset": {"day"}}, "The ceiling"},
			{url.Values{"name": {"x"}, "reset": {"fortnight"}, "limit": {"1"}}, "The ceiling"},
		} {
			u.get("/account/keys")
			if st, body := u.post("/account/keys", tc.form); st != 400 || !strings.Contains(body, tc.want) {
				t.Errorf("create %v: %d", tc.form, st)
			}
		}
	})

	t.Run("keys: allowed models", func(t *testing.T) {
		key, id := createKey(t, u, url.Values{"name": {"narrow"}, "allowed_models": {" test/model , other/ "}})
		if row := keyRow(t, u, id); !strings.Contains(row, "test/model, other/") {
			t.Fatalf("the key's row shows no allowed models: %s", row)
		}
		if _, err := sdkChat(key, g.base, "test/model"); err != nil {
			t.Fatalf("an allowed model: %v", err)
		}
		if _, err := sdkChat(key, g.base, "test/other"); err == nil || !strings.Contains(err.Error(), "403") {
			t.Fatalf("a model outside the list: %v", err)
		}
		u.get("/account/keys")
		if st, body := u.post("/account/keys", url.Values{"name": {"x"}, "allowed_models": {"open ai/"}}); st != 400 || !strings.Contains(body, "Allowed models: at most 100") {
			t.Fatalf("a list with a space: %d", st)
		}
	})

	t.Run("activity: filters, pages, chart, CSV", func(t *testing.T) {
		keyA, idA := createKey(t, u, url.Values{"name": {"alpha"}})
		keyB, idB := createKey(t, u, url.Values{"name": {"beta"}})
		var wg sync.WaitGroup
		errs := make(chan error, 60)
		for i := range 56 {
			key, model := keyA, "test/model"
			if i%4 == 0 {
				key, model = keyB, "test/other"
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := sdkChat(key, g.base, model); err != nil {
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		rows := func(q string) int {
			u.get("/account/activity" + q)
			return strings.Count(u.last, `<tr data-generation="`)
		}
		waitFor(t, 10*time.Second, "the 56 generations in activity", func() bool {
			return rows("?key="+idA) == 42 && rows("?key="+idB) == 14
		})
		if n := rows("?key=" + idB + "&model=test/other"); n != 14 {
			t.Errorf("beta on test/other: %d rows", n)
		}
		if n := rows("?key=" + idB + "&model=test/model"); n != 0 || !strings.Contains(u.last, "No requests yet") {
			t.Errorf("beta on test/model: %d rows", n)
		}
		if n := rows(""); n != 50 || !strings.Contains(u.last, `href="?page=2&amp;key=&amp;model="`) {
			t.Fatalf("page 1: %d rows, no link to page 2", n)
		}
		first := u.last
		if n := rows("?page=2"); n < 6 || !strings.Contains(u.last, `href="?page=1&amp;key=&amp;model="`) || strings.Contains(u.last, "?page=3") {
			t.Fatalf("page 2: %d rows", n)
		}
		for _, id := range regexp.MustCompile(`data-generation="([^"]+)"`).FindAllStringSubmatch(u.last, -1) {
			if strings.Contains(first, id[0]) {
				t.Fatalf("generation %s is on both pages", id[1])
			}
		}
		if n := rows("?page=-3"); n != 50 {
			t.Errorf("page -3: %d rows", n)
		}

		// The chart: today's bar is the sum of the credits of the filtered generations.
		var sum int64
		_, csv := u.get("/account/activity.csv?key=" + idB)
		lines := strings.Split(strings.TrimSpace(csv), "\n")
		if len(lines) != 15 || !strings.HasPrefix(lines[0], "id,created_at,key,model,tokens_prompt,tokens_completion,credits,rubles,status") {
			t.Fatalf("beta's CSV: %d lines\n%s", len(lines), csv)
		}
		for _, l := range lines[1:] {
			f := strings.Split(l, ",")
			if !strings.HasPrefix(f[2], "beta (") || f[3] != "test/other" || f[8] != "completed" {
				t.Fatalf("CSV line %q", l)
			}
			var c int64
			fmt.Sscan(f[6], &c)
			sum += c
		}
		u.get("/account/activity?key=" + idB)
		today := time.Now().In(moscow(t)).Format("2006-01-02")
		if !strings.Contains(u.last, fmt.Sprintf(`data-day="%s" data-credits="%d"`, today, sum)) || strings.Count(u.last, `<span style="height:`) != 30 {
			t.Fatalf("the chart lacks today's bar of %d credits:\n%s", sum, u.last)
		}
	})

	t.Run("login throttled per address", func(t *testing.T) {
		v := g.user(t)
		v.get("/login")
		for i := range 20 { // 20 different emails, each failing once: the address is the common factor
			if st, _ := v.post("/login", url.Values{"email": {fmt.Sprintf("guess%d@example.com", i)}, "password": {"wrong password"}}); st != 401 {
				t.Fatalf("attempt %d: %d", i, st)
			}
		}
		if st, body := v.post("/login", url.Values{"email": {email}, "password": {"correct horse battery"}}); st != 429 || !strings.Contains(body, "Too many attempts") {
			t.Fatalf("the 21st attempt from one address: %d", st)
		}
	})
}

// TestWebAreaSecureCookies: with an https public URL (TLS at a proxy in front) every cookie is Secure.
func TestWebAreaSecureCookies(t *testing.T) {
	g := startWebGatewayWith(t, "  public_url: https://shlyuz.example.com\n", true)
	resp, err := http.Get(g.base + "/register")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	cookies := resp.Header.Values("Set-Cookie")
	if len(cookies) == 0 {
		t.Fatal("no cookie set")
	}
	for _, c := range cookies {
		if lc := strings.ToLower(c); !strings.Contains(lc, "; secure") || !strings.Contains(lc, "; httponly") || !strings.Contains(lc, "samesite=lax") {
			t.Errorf("cookie %q", c)
		}
	}
}

// keyRow is the keys table's row of a key.
func keyRow(t *testing.T, u *browserless, id string) string {
	t.Helper()
	u.get("/account/keys")
	i := strings.Index(u.last, `<tr data-key="`+id+`">`)
	if i < 0 {
		t.Fatalf("key %s is not listed:\n%s", id, u.last)
	}
	return u.last[i : i+strings.Index(u.last[i:], "</tr>")]
}

// TestWebAreaWithoutPayments: with YooKassa unconfigured the top-up and plans pages say so, a payment
// cannot start, notifications are 404, and the operator's top-up still reaches the overview.
func TestWebAreaWithoutPayments(t *testing.T) {
	g := startWebGatewayWith(t, "", false)
	u, email := g.signUp(t)
	for _, path := range []string{"/account/topup", "/account/plans"} {
		if st, body := u.get(path); st != 200 || !strings.Contains(body, "Card payments are not configured") || strings.Contains(body, "Go to payment") || strings.Contains(body, "Buy the plan") {
			t.Fatalf("%s: %d\n%s", path, st, body)
		}
	}
	for _, path := range []string{"/account/topup", "/account/plans/basic"} {
		if st, body := u.post(path, url.Values{"amount": {"500"}}); st != 503 || !strings.Contains(body, "Card payments are not configured") {
			t.Fatalf("POST %s: %d", path, st)
		}
	}
	if st := call(t, g.base, "POST", "/payments/yookassa/notify", "", map[string]any{"event": "payment.succeeded", "object": map[string]any{"id": "x"}}, nil); st != 404 {
		t.Fatalf("a notification without payments: %d", st)
	}
	if st := call(t, g.base, "POST", "/api/admin/accounts/"+g.accountIDOf(t, email)+"/topups", adminToken,
		map[string]any{"rubles": "250", "idempotency_key": "by-hand"}, nil); st != 200 {
		t.Fatalf("operator top-up: %d", st)
	}
	wantBalanceWeb(t, u, 0, 25_000_000)
}
