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

// browser is a headless Chromium tab driven by chromedp. After every step it
// checks the page for unlabelled fields and unnamed buttons and keeps a
// screenshot of it; when the test fails, the screenshots of every page it went
// through (and the failing one, with its HTML) are named in the test output.
type browser struct {
	t     *testing.T
	ctx   context.Context
	shots string
	n     int
	pages []string
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
	shots, err := os.MkdirTemp("", "shlyuz-browser-")
	if err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, ctx: ctx, shots: shots}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("screenshots of every page, in order, in %s:\n  %s", shots, strings.Join(b.pages, "\n  "))
			return
		}
		_ = os.RemoveAll(shots)
	})
	return b
}

// run performs a step, then checks the page it ends on for accessibility and
// keeps its screenshot; on failure it saves a screenshot and fails the test.
func (b *browser) run(step string, actions ...chromedp.Action) {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Run(ctx, actions...); err != nil {
		b.t.Fatalf("%s: %v (screenshot: %s)", step, err, b.screenshot(step))
	}
	var problems []string
	if err := chromedp.Run(ctx, chromedp.Evaluate(a11yAudit, &problems)); err != nil {
		b.t.Fatalf("%s: the accessibility check: %v", step, err)
	}
	shot := b.screenshot(step)
	if len(problems) > 0 {
		b.t.Fatalf("%s: the page is not usable by label and name (screenshot: %s):\n%s", step, shot, strings.Join(problems, "\n"))
	}
}

// a11yAudit lists the page's form fields without a label and buttons without a name.
const a11yAudit = `(function () {
  var p = [];
  document.querySelectorAll('input, select, textarea').forEach(function (e) {
    if (e.type === 'hidden') { return; }
    var labelled = (e.id && document.querySelector('label[for="' + CSS.escape(e.id) + '"]')) || e.closest('label') ||
      e.getAttribute('aria-label') || e.getAttribute('aria-labelledby');
    if (!labelled) { p.push('a field without a label: ' + e.outerHTML.slice(0, 160)); }
  });
  document.querySelectorAll('button, [role=button], input[type=submit]').forEach(function (e) {
    if (!(e.getAttribute('aria-label') || e.textContent || e.value || '').trim()) { p.push('a button without a name: ' + e.outerHTML.slice(0, 160)); }
  });
  return p;
})()`

// screenshot keeps a screenshot (and the HTML) of the page as the step's, and names the file.
func (b *browser) screenshot(step string) string {
	var jpeg []byte
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	var url, html string
	if err := chromedp.Run(ctx, chromedp.Location(&url), chromedp.OuterHTML("html", &html), chromedp.FullScreenshot(&jpeg, 80)); err != nil {
		return "none: " + err.Error()
	}
	b.n++
	name := filepath.Join(b.shots, fmt.Sprintf("%02d-%s", b.n, strings.NewReplacer(" ", "-", "/", "-").Replace(step)))
	_ = os.WriteFile(name+".jpg", jpeg, 0o644)
	_ = os.WriteFile(name+".html", []byte("<!-- "+url+" -->\n"+html), 0o644)
	b.pages = append(b.pages, name+".jpg ("+url+")")
	return name + ".jpg"
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

// TestBrowserNewcomer walks a newcomer's whole path in headless Chromium: find a model on the landing
// page, register, confirm from the mailbox, log in, top up 500 ₽ and buy a plan through the fake
// YooKassa, make a key with a ceiling, copy it and raise its ceiling, call the API with it through the
// openai-go SDK, chat in the web chat (streamed, Markdown rendered safely, an image model's picture
// shown, the history kept), and find the requests with their exact credits in activity and the
// balance on the overview equal to the ledger. Every page is checked for labelled fields and named
// buttons on the way.
func TestBrowserNewcomer(t *testing.T) {
	g := startWebGateway(t)
	b := newBrowser(t)
	email := fmt.Sprintf("browser%d@example.com", time.Now().UnixNano())
	const password = "a long enough password"

	var shown int
	b.run("landing search", chromedp.Navigate(g.base+"/?lang=en"), b.fill("Search models", "gemini-2.5-flash-image"),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#models tbody tr')).filter(function (r) { return !r.hidden }).length`, &shown))
	if shown != 1 {
		t.Fatalf("the search shows %d models; want gemini-2.5-flash-image alone", shown)
	}
	b.run("register", chromedp.Navigate(g.base+"/register"),
		b.fill("Email", email), b.fill("Password", password), b.press("Create account"),
		textContains(`[role=status]`, "We sent a letter"))
	b.run("confirm", chromedp.Navigate(g.mail.letterTo(t, email).link(t)), textContains(`[role=status]`, "Your email is confirmed"))
	b.run("log in", b.fill("Email", email), b.fill("Password", password), b.press("Log in"),
		textContains("#bought", "0 ₽"))

	b.run("top up", chromedp.Navigate(g.base+"/account/topup"), b.fill("Amount, ₽", "500"), b.press("Go to payment"),
		chromedp.WaitVisible(button("Оплатить"), chromedp.BySearch))
	b.run("pay the top-up", b.press("Оплатить"), textContains("#payment-status", "The payment succeeded"))
	b.run("buy a plan", chromedp.Navigate(g.base+"/account/plans"), b.press(`Buy the plan "Basic"`),
		chromedp.WaitVisible(button("Оплатить"), chromedp.BySearch))
	b.run("pay the plan", b.press("Оплатить"), textContains("#payment-status", "The payment succeeded"))

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
	b.run("raise the ceiling", chromedp.Clear(field("New ceiling of key browser, ₽ (empty: none)"), chromedp.BySearch),
		b.fill("New ceiling of key browser, ₽ (empty: none)", "75"), b.press("Save the ceiling of key browser"),
		textContains(`#keys tbody`, "75 ₽ / month"))

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

	// The web chat: three replies, each streamed with its cost.
	chat := func(step, model, message string, n int, more ...chromedp.Action) {
		last := fmt.Sprintf(`#conversation li:nth-child(%d)`, 2*n)
		b.run(step, append([]chromedp.Action{chromedp.SetValue(field("Model"), model, chromedp.BySearch),
			b.fill("Message", message), b.press("Send"), chromedp.WaitVisible(last + ` .cost`)}, more...)...)
	}
	b.run("open the chat", chromedp.Navigate(g.base+"/account/chat"))
	var reply string
	chat("web chat", "test/model", "Hello from the browser", 1, chromedp.Text(`#conversation li:nth-child(2) .text`, &reply))
	if reply == "" {
		t.Fatal("the web chat's reply is empty")
	}
	chat("markdown, safely", "test/model", `**bold**, [a link](https://example.com/) and <img src=x onerror="window.pwned=1"><script>window.pwned=2</script>`, 2)
	var md []string
	b.run("the message as rendered", chromedp.Evaluate(`(function () {
  var t = document.querySelector('#conversation li:nth-child(3) .text');
  var s = t.querySelector('strong'), a = t.querySelector('a');
  return [String(window.pwned), s ? s.textContent : '', a ? a.getAttribute('href') : '', String(t.querySelectorAll('img, script').length), t.textContent];
})()`, &md))
	if len(md) != 5 || md[0] != "undefined" || md[1] != "bold" || md[2] != "https://example.com/" || md[3] != "0" ||
		!strings.Contains(md[4], `<img src=x onerror="window.pwned=1"><script>`) {
		t.Fatalf("the message as rendered: %q", md)
	}
	var img string
	chat("an image model", "google/gemini-2.5-flash-image", "Draw a cat", 3,
		chromedp.AttributeValue(`#conversation li:nth-child(6) img`, "src", &img, nil))
	if !strings.HasPrefix(img, "data:image/png;base64,") {
		t.Fatalf("the image model's picture: %.40q", img)
	}
	var costs []string
	b.run("the costs", chromedp.Evaluate(`Array.from(document.querySelectorAll('#conversation .cost')).map(function (e) {
  return e.getAttribute('data-generation') + ' ' + e.textContent.replace(/^Cost: /, '').split(' ')[0] })`, &costs))
	var turns int
	b.run("the history is kept", chromedp.Navigate(g.base+"/account/"), chromedp.Navigate(g.base+"/account/chat"),
		chromedp.WaitVisible(`#conversation li:nth-child(6)`), chromedp.Evaluate(`document.querySelectorAll('#conversation li').length`, &turns))
	if turns != 6 {
		t.Fatalf("%d messages in the chat after coming back; want 6", turns)
	}

	type generation struct {
		id      string
		credits int64
	}
	gens := []generation{{resp.ID, usage.Credits}}
	for _, c := range costs {
		id, credits, _ := strings.Cut(c, " ")
		n, err := strconv.ParseInt(credits, 10, 64)
		if err != nil || n <= 0 || !strings.HasPrefix(id, "gen-") {
			t.Fatalf("cost %q", c)
		}
		gens = append(gens, generation{id, n})
	}
	if len(gens) != 4 {
		t.Fatalf("costs %q; want 3", costs)
	}
	var spent int64
	for _, want := range gens {
		sel := fmt.Sprintf(`tr[data-generation=%q] td.credits`, want.id)
		var got string
		b.run("activity "+want.id, chromedp.Navigate(g.base+"/account/activity"), chromedp.WaitVisible(sel), chromedp.Text(sel, &got))
		if got != strconv.FormatInt(want.credits, 10) {
			t.Fatalf("activity shows %s credits for %s; want %d", got, want.id, want.credits)
		}
		spent += want.credits
	}

	var pkg, bought string
	b.run("overview", chromedp.Navigate(g.base+"/account/"), chromedp.Text("#package-credits", &pkg), chromedp.Text("#bought-credits", &bought))
	wantPkg := 50_000_000 - spent
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
