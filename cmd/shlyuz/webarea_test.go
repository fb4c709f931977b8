package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/shlyuz/shlyuz/payments/yookassa"
	ykfake "github.com/shlyuz/shlyuz/payments/yookassa/fake"
)

// signUp registers and confirms a fresh account through the pages and the mailbox, and logs it in.
func (g *webGateway) signUp(t *testing.T) (*browserless, string) {
	t.Helper()
	email := fmt.Sprintf("web%d-%d@example.com", counter.Add(1), time.Now().UnixNano())
	u := g.user(t)
	u.get("/register")
	if st, body := u.post("/register", url.Values{"email": {email}, "password": {"correct horse battery"}}); st != 200 || !strings.Contains(body, "We sent a letter") {
		t.Fatalf("register: %d\n%s", st, body)
	}
	l := g.mail.letterTo(t, email)
	if st, body := u.get(l.link(t)); st != 200 || !strings.Contains(body, "Your email is confirmed") {
		t.Fatalf("confirm: %d\n%s", st, body)
	}
	if st, body := u.post("/login", url.Values{"email": {email}, "password": {"correct horse battery"}}); st != 200 || !strings.Contains(body, "Bought credits") {
		t.Fatalf("login: %d\n%s", st, body)
	}
	return u, email
}

var paymentIDRE = regexp.MustCompile(`/checkout/([0-9a-f-]+)$`)

// checkout submits a payment form and returns the fake checkout page's payment id.
func checkout(t *testing.T, u *browserless, path string, form url.Values) string {
	t.Helper()
	st, body := u.post(path, form)
	m := paymentIDRE.FindStringSubmatch(u.lastURL)
	if st != 200 || m == nil || !strings.Contains(body, "Оплатить") {
		t.Fatalf("%s: %d at %s, not the checkout page\n%s", path, st, u.lastURL, body)
	}
	return m[1]
}

// pay follows a payment form to the fake checkout and presses a button there; it returns the page it lands on.
func (g *webGateway) pay(t *testing.T, u *browserless, path string, form url.Values, action string) string {
	t.Helper()
	checkout(t, u, path, form)
	req, _ := http.NewRequest("POST", u.lastURL, strings.NewReader(url.Values{"action": {action}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept-Language", "en")
	_, body := u.do(req)
	return body
}

func TestWebAreaAccounts(t *testing.T) {
	g := startWebGateway(t)
	u, email := g.signUp(t)

	t.Run("no enumeration on register", func(t *testing.T) {
		v := g.user(t)
		v.get("/register")
		st, body := v.post("/register", url.Values{"email": {email}, "password": {"another long password"}})
		if st != 200 || !strings.Contains(body, "We sent a letter") {
			t.Fatalf("duplicate register: %d", st)
		}
		if l := g.mail.letterTo(t, email); !strings.Contains(l.Body, "/reset") {
			t.Fatalf("the owner is not told: %q", l.Body)
		}
	})
	t.Run("bad input", func(t *testing.T) {
		v := g.user(t)
		for _, tc := range []struct {
			email, password, want string
		}{
			{"not-an-email", "long enough password", "Enter a valid email address"},
			{"weak@example.com", "short", "too short"},
		} {
			v.get("/register")
			st, body := v.post("/register", url.Values{"email": {tc.email}, "password": {tc.password}})
			if st != 400 || !strings.Contains(body, tc.want) || !strings.Contains(body, `role="alert"`) {
				t.Errorf("%s/%s: %d", tc.email, tc.password, st)
			}
		}
	})
	t.Run("tampered confirmation link", func(t *testing.T) {
		v := g.user(t)
		e2 := "tamper" + email
		v.get("/register")
		v.post("/register", url.Values{"email": {e2}, "password": {"correct horse battery"}})
		link := g.mail.letterTo(t, e2).link(t)
		bad := strings.Replace(link, "s=", "s=A", 1)
		if st, body := v.get(bad); st != 400 || !strings.Contains(body, "wrong or expired") {
			t.Fatalf("tampered link: %d", st)
		}
		v.get("/login")
		if st, body := v.post("/login", url.Values{"email": {e2}, "password": {"correct horse battery"}}); st != 403 || !strings.Contains(body, "Confirm your email") {
			t.Fatalf("unconfirmed login: %d", st)
		}
	})
	t.Run("forged CSRF token", func(t *testing.T) {
		u.get("/account/keys")
		if st, _ := u.post("/account/keys", url.Values{"name": {"x"}, "csrf": {strings.Repeat("0", 64)}}); st != 403 {
			t.Fatalf("forged token: %d", st)
		}
		v := g.user(t) // a signed-out visitor without the cookie
		if st, _ := v.post("/login", url.Values{"email": {email}, "password": {"x"}, "csrf": {"abc"}}); st != 403 {
			t.Fatalf("login without the CSRF cookie: %d", st)
		}
	})
	t.Run("throttling without enumeration", func(t *testing.T) {
		for _, who := range []string{email, "nobody-" + email} {
			v := g.user(t)
			v.get("/login")
			for i := range 5 {
				if st, body := v.post("/login", url.Values{"email": {who}, "password": {"wrong password"}}); st != 401 || !strings.Contains(body, "Wrong email or password") {
					t.Fatalf("%s attempt %d: %d", who, i, st)
				}
			}
			if st, body := v.post("/login", url.Values{"email": {who}, "password": {"correct horse battery"}}); st != 429 || !strings.Contains(body, "Too many attempts") {
				t.Fatalf("%s after 5 failures: %d", who, st)
			}
		}
	})
	t.Run("logout revokes the session", func(t *testing.T) {
		v, _ := g.signUp(t)
		v.get("/account/")
		token := v.csrf()
		v.post("/logout", url.Values{})
		if st, _ := v.get("/account/"); st != 200 || !strings.Contains(v.last, "Log in") {
			t.Fatalf("after logout: %d", st)
		}
		if st, _ := v.post("/account/keys", url.Values{"name": {"x"}, "csrf": {token}}); st == 201 {
			t.Fatal("a replayed token of a closed session made a key")
		}
	})
	t.Run("password reset", func(t *testing.T) {
		v := g.user(t)
		v.get("/reset")
		v.post("/reset", url.Values{"email": {email}})
		link := g.mail.letterTo(t, email).link(t)
		v.get(link)
		if st, body := v.post("/reset/confirm", url.Values{"a": {q(link, "a")}, "e": {q(link, "e")}, "s": {q(link, "s")}, "password": {"a brand new password"}}); st != 200 || !strings.Contains(body, "password is changed") {
			t.Fatalf("reset: %d\n%s", st, body)
		}
		if st, _ := v.get(link); st != 400 {
			t.Fatalf("a used reset link works again: %d", st)
		}
		if st, _ := u.get("/account/"); st != 200 || !strings.Contains(u.last, "Log in") {
			t.Fatal("the old session survived the password reset")
		}
	})
}

func q(link, k string) string {
	u, _ := url.Parse(link)
	return u.Query().Get(k)
}

// TestWebAreaPayments: top-ups and plans through the fake YooKassa, credited exactly once.
func TestWebAreaPayments(t *testing.T) {
	g := startWebGateway(t)
	u, email := g.signUp(t)
	u.get("/account/topup")

	t.Run("bad amounts", func(t *testing.T) {
		for _, a := range []string{"5", "10.001", "abc", "-20", ""} {
			u.get("/account/topup")
			if st, body := u.post("/account/topup", url.Values{"amount": {a}}); st != 400 || !strings.Contains(body, "at most two decimals") {
				t.Errorf("amount %q: %d", a, st)
			}
		}
	})
	t.Run("top up 500 rubles", func(t *testing.T) {
		u.get("/account/topup")
		body := g.pay(t, u, "/account/topup", url.Values{"amount": {"500"}}, "pay")
		if !strings.Contains(body, "The payment succeeded") {
			t.Fatalf("return page:\n%s", body)
		}
		wantBalanceWeb(t, u, 0, 50_000_000)
		// The shop requires receipts: the payment carried one, to the account's
		// e-mail, whose one line adds up to the payment to the kopeck.
		rcs := g.yk.Receipts()
		if len(rcs) != 1 || rcs[0].Type != "payment" || rcs[0].Kopecks != 50000 || rcs[0].Customer.Email != email ||
			len(rcs[0].Items) != 1 || rcs[0].Items[0].Description != "Пополнение баланса Шлюз" || rcs[0].Items[0].Amount.Value != "500.00" {
			t.Fatalf("receipts: %+v", rcs)
		}
		if u.get("/account/"); !strings.Contains(u.last, `class="receipt">sent by e-mail<`) {
			t.Fatalf("the payment history does not show the receipt's status:\n%s", u.last)
		}
	})
	t.Run("notification replayed", func(t *testing.T) {
		sent := g.yk.Sent()
		last := sent[len(sent)-1]
		for range 2 {
			if st := ykfake.Notify(g.base+"/payments/yookassa/notify", last); st != 200 {
				t.Fatalf("replayed notification: %d", st)
			}
		}
		wantBalanceWeb(t, u, 0, 50_000_000)
	})
	t.Run("notification lies", func(t *testing.T) {
		u.get("/account/topup")
		id := checkout(t, u, "/account/topup", url.Values{"amount": {"100"}})
		p, _ := g.yk.Payment(id)
		p.Status, p.Paid = yookassa.StatusSucceeded, true // the body says succeeded, the API says pending
		obj, _ := json.Marshal(p)
		if st := ykfake.Notify(g.base+"/payments/yookassa/notify", yookassa.Notification{Type: "notification", Event: "payment.succeeded", Object: obj}); st != 200 {
			t.Fatalf("notification: %d", st)
		}
		wantBalanceWeb(t, u, 0, 50_000_000)
		// Unknown payment, and garbage.
		obj, _ = json.Marshal(yookassa.Payment{ID: "no-such-payment", Status: "succeeded"})
		if st := ykfake.Notify(g.base+"/payments/yookassa/notify", yookassa.Notification{Type: "notification", Event: "payment.succeeded", Object: obj}); st != 404 {
			t.Fatalf("unknown payment: %d", st)
		}
		if st := ykfake.Notify(g.base+"/payments/yookassa/notify", yookassa.Notification{}); st != 400 {
			t.Fatalf("empty notification: %d", st)
		}
		// The payer cancels: nothing is credited.
		if err := g.yk.Settle(id, yookassa.StatusCanceled, "payment.canceled"); err != nil {
			t.Fatal(err)
		}
		wantBalanceWeb(t, u, 0, 50_000_000)
	})
	t.Run("refund", func(t *testing.T) {
		v, _ := g.signUp(t)
		v.get("/account/topup")
		id := checkout(t, v, "/account/topup", url.Values{"amount": {"200"}})
		if err := g.yk.Settle(id, yookassa.StatusSucceeded, "payment.succeeded"); err != nil {
			t.Fatal(err)
		}
		wantBalanceWeb(t, v, 0, 20_000_000)
		r, err := g.yk.Refund(id, 5050) // 50.50 ₽ back
		if err != nil {
			t.Fatal(err)
		}
		wantBalanceWeb(t, v, 0, 20_000_000-5_050_000)
		obj, _ := json.Marshal(r)
		n := yookassa.Notification{Type: "notification", Event: "refund.succeeded", Object: obj}
		if st := ykfake.Notify(g.base+"/payments/yookassa/notify", n); st != 200 { // replayed
			t.Fatalf("replayed refund: %d", st)
		}
		wantBalanceWeb(t, v, 0, 20_000_000-5_050_000)
		obj, _ = json.Marshal(yookassa.Refund{ID: "no-such-refund", PaymentID: id, Status: "succeeded", Amount: yookassa.Rubles(20000)})
		if st := ykfake.Notify(g.base+"/payments/yookassa/notify", yookassa.Notification{Type: "notification", Event: "refund.succeeded", Object: obj}); st != 404 {
			t.Fatalf("a refund YooKassa does not know: %d", st)
		}
		wantBalanceWeb(t, v, 0, 20_000_000-5_050_000)
		// The operator refunds 20 ₽ more through the operator API: the refund
		// carries its refund receipt, and a retry with the same key changes nothing.
		yp, _ := g.yk.Payment(id)
		var out struct {
			Credits int64  `json:"credits"`
			Receipt string `json:"receipt"`
		}
		for range 2 {
			if st := call(t, g.base, "POST", "/api/admin/payments/"+yp.Metadata["payment_id"]+"/refunds", adminToken,
				map[string]any{"rubles": "20.00", "idempotency_key": "r-1"}, &out); st != 200 || out.Credits != 2_000_000 || out.Receipt != "succeeded" {
				t.Fatalf("operator refund: %d %+v", st, out)
			}
		}
		wantBalanceWeb(t, v, 0, 20_000_000-5_050_000-2_000_000)
		var refundReceipts int64
		for _, rc := range g.yk.Receipts() {
			if rc.Type == "refund" && rc.PaymentID == id {
				refundReceipts += rc.Kopecks
			}
		}
		if refundReceipts != 5050+2000 {
			t.Fatalf("refund receipts add up to %d kopecks, want %d", refundReceipts, 5050+2000)
		}
		if st := call(t, g.base, "POST", "/api/admin/payments/"+yp.Metadata["payment_id"]+"/refunds", adminToken,
			map[string]any{"rubles": "500.00", "idempotency_key": "r-2"}, nil); st != 400 {
			t.Fatalf("a refund above the payment: %d", st)
		}
	})
	t.Run("buy a plan", func(t *testing.T) {
		u.get("/account/plans")
		body := g.pay(t, u, "/account/plans/basic", url.Values{}, "pay")
		if !strings.Contains(body, "The payment succeeded") {
			t.Fatalf("return page:\n%s", body)
		}
		wantBalanceWeb(t, u, 50_000_000, 50_000_000)
		if !regexp.MustCompile(`valid until <strong id="package-expires">\d{4}-\d\d-\d\d \d\d:\d\d\x{a0}MSK<`).MatchString(u.last) {
			t.Fatalf("the overview does not say when the package expires:\n%s", u.last)
		}
	})
	t.Run("key, SDK call, activity", func(t *testing.T) {
		u.get("/account/keys")
		st, body := u.post("/account/keys", url.Values{"name": {"ci"}, "limit": {"100"}, "reset": {"month"}})
		key := regexp.MustCompile(`value="(sk-shz-v1-[0-9a-f]{64})"`).FindStringSubmatch(body)
		if st != 201 || key == nil {
			t.Fatalf("create key: %d\n%s", st, body)
		}
		if u.get("/account/keys"); strings.Contains(u.last, key[1]) {
			t.Fatal("the secret is shown twice")
		}
		client := openai.NewClient(option.WithBaseURL(g.base+"/api/v1"), option.WithAPIKey(key[1]))
		resp, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
			Model: "test/model", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hello!")}, User: openai.String("end-user-42")})
		if err != nil {
			t.Fatal(err)
		}
		var usage struct {
			Credits int64 `json:"credits"`
		}
		_ = json.Unmarshal([]byte(resp.Usage.RawJSON()), &usage)
		if usage.Credits <= 0 {
			t.Fatalf("usage %s", resp.Usage.RawJSON())
		}
		waitFor(t, 10*time.Second, "the generation in activity", func() bool {
			u.get("/account/activity")
			return strings.Contains(u.last, `data-generation="`+resp.ID+`"`)
		})
		row := u.last[strings.Index(u.last, `data-generation="`+resp.ID+`"`):]
		if !strings.Contains(row[:strings.Index(row, "</tr>")], `data-credits="`+strconv.FormatInt(usage.Credits, 10)+`"`) {
			t.Fatalf("activity row %q lacks %d credits", row[:strings.Index(row, "</tr>")], usage.Credits)
		}
		if !strings.Contains(row[:strings.Index(row, "</tr>")], `data-user="end-user-42"`) {
			t.Fatalf("activity row %q lacks its end user", row[:strings.Index(row, "</tr>")])
		}
		for user, listed := range map[string]bool{"end-user-42": true, "someone-else": false} {
			if _, page := u.get("/account/activity?user=" + user); strings.Contains(page, resp.ID) != listed {
				t.Fatalf("activity of end user %s lists the generation: %v", user, !listed)
			}
		}
		wantBalanceWeb(t, u, 50_000_000-usage.Credits, 50_000_000)
		if st, csv := u.get("/account/activity.csv"); st != 200 || !strings.Contains(csv, resp.ID) || !strings.Contains(csv, ","+strconv.FormatInt(usage.Credits, 10)+",") {
			t.Fatalf("csv: %d\n%s", st, csv)
		}
		// The operator sees the account and its activity.
		var acts struct {
			Data []struct {
				ID      string `json:"id"`
				Credits int64  `json:"credits"`
			} `json:"data"`
		}
		var accts struct {
			Data []struct{ ID, Email string } `json:"data"`
		}
		if st := call(t, g.base, "GET", "/api/admin/accounts?limit=500", adminToken, nil, &accts); st != 200 || len(accts.Data) == 0 {
			t.Fatalf("admin accounts: %d", st)
		}
		accID := ""
		for _, a := range accts.Data {
			if a.Email == email {
				accID = a.ID
			}
		}
		if st := call(t, g.base, "GET", "/api/admin/accounts/"+accID+"/activity", adminToken, nil, &acts); st != 200 || len(acts.Data) != 1 ||
			acts.Data[0].ID != resp.ID || acts.Data[0].Credits != usage.Credits {
			t.Fatalf("admin activity of %q: %d %+v", accID, st, acts)
		}
		if st := call(t, g.base, "GET", "/api/admin/accounts?limit=0", adminToken, nil, nil); st != 400 {
			t.Fatalf("limit=0: %d", st)
		}

		// The web chat spends through the same path: streamed, its cost in the last chunk, in activity too.
		u.get("/account/chat")
		req, _ := http.NewRequest("POST", g.base+"/account/chat", strings.NewReader(`{"model":"test/model","messages":[{"role":"user","content":"Hi there"}]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-CSRF-Token", u.csrf())
		st, sse := u.do(req)
		m := regexp.MustCompile(`"id":"(gen-[^"]+)".*"credits":(\d+)`).FindStringSubmatch(sse[strings.LastIndex(sse, "data: {"):])
		if st != 200 || m == nil || !strings.Contains(sse, "data: [DONE]") || strings.Count(sse, `"delta"`) < 2 {
			t.Fatalf("web chat: %d\n%s", st, sse)
		}
		chatCredits, _ := strconv.ParseInt(m[2], 10, 64)
		waitFor(t, 10*time.Second, "the web chat's generation in activity", func() bool {
			u.get("/account/activity")
			return strings.Contains(u.last, `data-generation="`+m[1]+`"`)
		})
		wantBalanceWeb(t, u, 50_000_000-usage.Credits-chatCredits, 50_000_000)
		if u.get("/account/keys"); strings.Contains(u.last, "shlyuz:web-chat") {
			t.Fatal("the web chat's key is listed for the user")
		}
		req, _ = http.NewRequest("POST", g.base+"/account/chat", strings.NewReader(`{"model":"test/model","messages":[{"role":"user","content":"x"}]}`))
		req.Header.Set("X-CSRF-Token", "forged")
		if st, _ := u.do(req); st != 403 {
			t.Fatalf("web chat with a forged token: %d", st)
		}

		var rec struct{ OK bool }
		if st := call(t, g.base, "GET", "/api/admin/reconcile", adminToken, nil, &rec); st != 200 || !rec.OK {
			t.Fatalf("reconcile: %d %+v", st, rec)
		}
	})
	t.Run("management key", func(t *testing.T) { // made in the web area, it manages keys at /api/v1/keys
		u.get("/account/keys")
		st, body := u.post("/account/keys", url.Values{"name": {"keys"}, "management": {"1"}})
		key := regexp.MustCompile(`value="(sk-shz-v1-[0-9a-f]{64})"`).FindStringSubmatch(body)
		if st != 201 || key == nil {
			t.Fatalf("create management key: %d\n%s", st, body)
		}
		var keys struct {
			Data []struct{ Name string } `json:"data"`
		}
		if st := call(t, g.base, "GET", "/api/v1/keys", key[1], nil, &keys); st != 200 || !slices.ContainsFunc(keys.Data, func(k struct{ Name string }) bool { return k.Name == "ci" }) {
			t.Fatalf("GET /api/v1/keys: %d %+v", st, keys)
		}
		// The web chat finds its key by identity, not by name: a key named as
		// it once was, made through the API with a zero ceiling, is the user's
		// own (listed, shown in the area), and the chat goes on through its key.
		var squatter struct {
			Data struct{ Hash string } `json:"data"`
		}
		if st := call(t, g.base, "POST", "/api/v1/keys", key[1], map[string]any{"name": "shlyuz:web-chat", "limit": 0}, &squatter); st != 201 {
			t.Fatalf("a key named shlyuz:web-chat through the API: %d", st)
		}
		keys.Data = nil
		call(t, g.base, "GET", "/api/v1/keys", key[1], nil, &keys)
		if n := len(slices.DeleteFunc(keys.Data, func(k struct{ Name string }) bool { return k.Name != "shlyuz:web-chat" })); n != 1 {
			t.Fatalf("GET /api/v1/keys lists %d keys named shlyuz:web-chat; want the one made through the API (the web chat's own is not listed)", n)
		}
		if u.get("/account/keys"); !strings.Contains(u.last, "shlyuz:web-chat") {
			t.Fatal("a key the user named shlyuz:web-chat is hidden from the user's keys page")
		}
		u.get("/account/chat")
		req, _ := http.NewRequest("POST", g.base+"/account/chat", strings.NewReader(`{"model":"test/model","messages":[{"role":"user","content":"Hi"}]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-CSRF-Token", u.csrf())
		if st, sse := u.do(req); st != 200 || !strings.Contains(sse, "data: [DONE]") || strings.Contains(sse, "key_limit_exceeded") {
			t.Fatalf("the web chat beside a key named as its own: %d\n%s", st, sse)
		}
	})
}

var creditsRE = regexp.MustCompile(`id="(package|bought)-credits">([\d,]+)\x{a0}credits?<`)

// wantBalanceWeb reads the overview page and checks the package and bought credits.
func wantBalanceWeb(t *testing.T, u *browserless, pkg, bought int64) {
	t.Helper()
	u.get("/account/")
	got := map[string]string{"package": "0"}
	for _, m := range creditsRE.FindAllStringSubmatch(u.last, -1) {
		got[m[1]] = strings.ReplaceAll(m[2], ",", "")
	}
	if got["package"] != strconv.FormatInt(pkg, 10) || got["bought"] != strconv.FormatInt(bought, 10) {
		t.Fatalf("overview: package %s bought %s; want %d and %d", got["package"], got["bought"], pkg, bought)
	}
}
