package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// chromiumPath is Debian's chromium; .ci/run installs it when absent.
const chromiumPath = "/usr/bin/chromium"

// browser is a headless Chromium tab driven by chromedp. Every step that
// fails leaves a screenshot of the page, named in the test output.
type browser struct {
	t     *testing.T
	ctx   context.Context
	shots string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("%s is missing (apt-get install -y chromium; .ci/run does it): %v", chromiumPath, err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("lang", "en-US"))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	if err := chromedp.Run(ctx); err != nil { // starts the browser
		t.Fatalf("start chromium: %v", err)
	}
	return &browser{t: t, ctx: ctx}
}

// run performs a step; on failure it saves a screenshot and fails the test.
func (b *browser) run(step string, actions ...chromedp.Action) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v (screenshot: %s)", step, err, b.screenshot(step))
	}
}

func (b *browser) screenshot(step string) string {
	if b.shots == "" {
		b.shots, _ = os.MkdirTemp("", "shlyuz-browser-")
	}
	var png []byte
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	var url, html string
	if err := chromedp.Run(ctx, chromedp.Location(&url), chromedp.OuterHTML("html", &html), chromedp.FullScreenshot(&png, 90)); err != nil {
		return "none: " + err.Error()
	}
	name := filepath.Join(b.shots, strings.NewReplacer(" ", "-", "/", "-").Replace(step))
	_ = os.WriteFile(name+".png", png, 0o644)
	_ = os.WriteFile(name+".html", []byte("<!-- "+url+" -->\n"+html), 0o644)
	return name + ".png"
}

// field is the input labelled text; button is the button named text: how a screen reader finds them.
func field(label string) string {
	return `//*[@id=//label[normalize-space()=` + xpathString(label) + `]/@for]`
}

func button(name string) string { return `//button[normalize-space()=` + xpathString(name) + `]` }

// xpathString quotes s for XPath 1.0, which has no escapes: with the quote s lacks.
func xpathString(s string) string {
	if !strings.Contains(s, `"`) {
		return `"` + s + `"`
	}
	return `'` + s + `'`
}

func (b *browser) fill(label, value string) chromedp.Action {
	return chromedp.SendKeys(field(label), value, chromedp.BySearch)
}

func (b *browser) press(name string) chromedp.Action {
	return chromedp.Click(button(name), chromedp.BySearch)
}

// textContains waits until the element's text holds want, across the navigations a click starts.
func textContains(sel, want string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		var last string
		for {
			try, cancel := context.WithTimeout(ctx, 2*time.Second)
			var text string
			err := chromedp.Run(try, chromedp.Text(sel, &text, chromedp.NodeVisible))
			cancel()
			if err == nil && strings.Contains(text, want) {
				return nil
			}
			if err == nil {
				last = text
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s never read %q (last %q): %w", sel, want, last, ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
}

// TestBrowserNewcomer walks a newcomer's whole path in headless Chromium: register, confirm from the
// mailbox, log in, top up 500 ₽ and buy a plan through the fake YooKassa, make a key with a ceiling and
// copy it, call the API with it through the openai-go SDK, chat in the web chat, and find both
// requests with their exact credits in activity and the balance on the overview equal to the ledger.
func TestBrowserNewcomer(t *testing.T) {
	g := startWebGateway(t)
	b := newBrowser(t)
	email := fmt.Sprintf("browser%d@example.com", time.Now().UnixNano())
	const password = "a long enough password"

	b.run("register", chromedp.Navigate(g.base+"/?lang=en"), chromedp.Navigate(g.base+"/register"),
		b.fill("Email", email), b.fill("Password", password), b.press("Create account"),
		textContains(`[role=status]`, "We sent a letter"))
	b.run("confirm", chromedp.Navigate(g.mail.letterTo(t, email).link(t)), textContains(`[role=status]`, "Your email is confirmed"))
	b.run("log in", b.fill("Email", email), b.fill("Password", password), b.press("Log in"),
		textContains("#bought", "0 ₽"))

	b.run("top up", chromedp.Navigate(g.base+"/account/topup"), b.fill("Amount, ₽", "500"), b.press("Go to payment"),
		chromedp.WaitVisible(button("Оплатить"), chromedp.BySearch), b.press("Оплатить"),
		textContains("#payment-status", "The payment succeeded"))
	b.run("buy a plan", chromedp.Navigate(g.base+"/account/plans"), b.press(`Buy the plan "Basic"`),
		chromedp.WaitVisible(button("Оплатить"), chromedp.BySearch), b.press("Оплатить"),
		textContains("#payment-status", "The payment succeeded"))

	var key string
	b.run("create a key", chromedp.Navigate(g.base+"/account/keys"), b.fill("Key name", "browser"),
		b.fill("Spending ceiling, ₽ (empty: none)", "50"), chromedp.SetValue(field("Ceiling period"), "month", chromedp.BySearch),
		b.press("Create key"), chromedp.Value(field("New key"), &key, chromedp.BySearch),
		b.press("Copy key"), chromedp.WaitVisible(button("Copied"), chromedp.BySearch))
	if !strings.HasPrefix(key, "sk-shz-v1-") {
		t.Fatalf("the new key reads %q (screenshot: %s)", key, b.screenshot("key"))
	}
	var keyRow string
	b.run("the key is listed", chromedp.Text(`#keys tbody`, &keyRow))
	if !strings.Contains(keyRow, "browser") || !strings.Contains(keyRow, "50 ₽ / month") || strings.Contains(keyRow, key) {
		t.Fatalf("keys table: %q", keyRow)
	}

	client := openai.NewClient(option.WithBaseURL(g.base+"/api/v1"), option.WithAPIKey(key))
	resp, err := client.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{
		Model: "test/model", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Hello from the SDK")}})
	if err != nil {
		t.Fatal(err)
	}
	var usage struct {
		Credits int64 `json:"credits"`
	}
	if err := json.Unmarshal([]byte(resp.Usage.RawJSON()), &usage); err != nil || usage.Credits <= 0 {
		t.Fatalf("usage %s: %v", resp.Usage.RawJSON(), err)
	}

	var chatGen, cost string
	b.run("web chat", chromedp.Navigate(g.base+"/account/chat"), chromedp.SetValue(field("Model"), "test/model", chromedp.BySearch),
		b.fill("Message", "Hello from the browser"), b.press("Send"),
		chromedp.WaitVisible(`#conversation .cost`), chromedp.Text(`#conversation .cost`, &cost),
		chromedp.AttributeValue(`#conversation .cost`, "data-generation", &chatGen, nil))
	var reply string
	b.run("the reply", chromedp.Text(`#conversation .assistant .text`, &reply))
	if reply == "" {
		t.Fatal("the web chat's reply is empty")
	}
	chatCredits, err := strconv.ParseInt(strings.Fields(strings.TrimPrefix(cost, "Cost: "))[0], 10, 64)
	if err != nil || chatCredits <= 0 {
		t.Fatalf("cost %q", cost)
	}

	for _, want := range []struct {
		gen     string
		credits int64
	}{{resp.ID, usage.Credits}, {chatGen, chatCredits}} {
		sel := fmt.Sprintf(`tr[data-generation=%q] td.credits`, want.gen)
		var got string
		b.run("activity "+want.gen, chromedp.Navigate(g.base+"/account/activity"), chromedp.WaitVisible(sel), chromedp.Text(sel, &got))
		if got != strconv.FormatInt(want.credits, 10) {
			t.Fatalf("activity shows %s credits for %s; want %d", got, want.gen, want.credits)
		}
	}

	var pkg, bought string
	b.run("overview", chromedp.Navigate(g.base+"/account/"), chromedp.Text("#package-credits", &pkg), chromedp.Text("#bought-credits", &bought))
	wantPkg := 50_000_000 - usage.Credits - chatCredits
	if pkg != strconv.FormatInt(wantPkg, 10) || bought != "50000000" {
		t.Fatalf("overview: package %s bought %s; want %d and 50000000", pkg, bought, wantPkg)
	}
	var credits creditsView
	if st := call(t, g.base, "GET", "/api/v1/credits", key, nil, &credits); st != 200 || credits.Data.PackageCredits != wantPkg || credits.Data.BoughtCredits != 50_000_000 {
		t.Fatalf("the API's credits %d: %+v", st, credits.Data)
	}
	var rec struct{ OK bool }
	if st := call(t, g.base, "GET", "/api/admin/reconcile", adminToken, nil, &rec); st != 200 || !rec.OK {
		t.Fatalf("the balance and the ledger disagree: %d %+v", st, rec)
	}
}
