package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/cdproto/target"
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
	t       *testing.T
	ctx     context.Context
	shots   *shots
	console *consoleLog
}

// consoleLog keeps the errors a tab's console reports: exceptions,
// console.error and failed loads.
type consoleLog struct {
	mu     sync.Mutex
	errors []string
}

func (l *consoleLog) add(s string) {
	l.mu.Lock()
	l.errors = append(l.errors, s)
	l.mu.Unlock()
}

// drain returns the errors since the last drain.
func (l *consoleLog) drain() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.errors
	l.errors = nil
	return out
}

// listen records the tab's console errors.
func (l *consoleLog) listen(ctx context.Context) {
	chromedp.ListenTarget(ctx, func(ev any) {
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			l.add("exception: " + e.ExceptionDetails.Text + describe(e.ExceptionDetails.Exception))
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError {
				var parts []string
				for _, a := range e.Args {
					parts = append(parts, string(a.Value)+a.Description)
				}
				l.add("console.error: " + strings.Join(parts, " "))
			}
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.LevelError {
				l.add(e.Entry.Text + " " + e.Entry.URL)
			}
		}
	})
}

func describe(o *runtime.RemoteObject) string {
	if o == nil {
		return ""
	}
	return " " + o.Description
}

// shots are the screenshots of a test's browsers, in order, in one directory.
type shots struct {
	dir   string
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
	// The budget of every page the test visits: a loaded 2-core machine under -race has needed over 3 minutes.
	ctx, cancelTime := context.WithTimeout(ctx, 6*time.Minute)
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc() })
	if err := chromedp.Run(ctx); err != nil { // starts the browser
		t.Fatalf("start chromium: %v", err)
	}
	dir, err := os.MkdirTemp("", "shlyuz-browser-")
	if err != nil {
		t.Fatal(err)
	}
	b := &browser{t: t, ctx: ctx, shots: &shots{dir: dir}, console: &consoleLog{}}
	b.console.listen(ctx)
	if err := chromedp.Run(ctx, cdplog.Enable()); err != nil {
		t.Fatalf("the console's log: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() || os.Getenv("SHLYUZ_KEEP_SCREENSHOTS") != "" {
			t.Logf("screenshots of every page, in order, in %s:\n  %s", dir, strings.Join(b.shots.pages, "\n  "))
			return
		}
		_ = os.RemoveAll(dir)
	})
	return b
}

// freshProfile is another tab of the same Chromium in a browser context of
// its own: no cookies or storage of b's, as another browser or device would be.
func (b *browser) freshProfile() *browser {
	b.t.Helper()
	// chromedp.WithNewBrowserContext asks for a tab without a window, which headless
	// Chromium refuses ("no browser is open"): the tab gets a window of its own here.
	var tab target.ID
	if err := chromedp.Run(b.ctx, chromedp.ActionFunc(func(ctx context.Context) error {
		browser := cdp.WithExecutor(ctx, chromedp.FromContext(ctx).Browser)
		profile, err := target.CreateBrowserContext().WithDisposeOnDetach(true).Do(browser)
		if err != nil {
			return err
		}
		tab, err = target.CreateTarget("about:blank").WithBrowserContextID(profile).WithNewWindow(true).Do(browser)
		return err
	})); err != nil {
		b.t.Fatalf("a fresh browser context: %v", err)
	}
	ctx, cancel := chromedp.NewContext(b.ctx, chromedp.WithTargetID(tab))
	b.t.Cleanup(cancel)
	if err := chromedp.Run(ctx); err != nil {
		b.t.Fatalf("attach to the fresh browser context: %v", err)
	}
	fresh := &browser{t: b.t, ctx: ctx, shots: b.shots, console: &consoleLog{}}
	fresh.console.listen(ctx)
	if err := chromedp.Run(ctx, cdplog.Enable()); err != nil {
		b.t.Fatalf("the fresh tab's console log: %v", err)
	}
	return fresh
}

// in is b for the subtest t: its failures are t's.
func (b *browser) in(t *testing.T) *browser {
	c := *b
	c.t = t
	return &c
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
	var png []byte
	ctx, cancel := context.WithTimeout(b.ctx, 10*time.Second)
	defer cancel()
	var url, html string
	if err := chromedp.Run(ctx, chromedp.Location(&url), chromedp.OuterHTML("html", &html), chromedp.FullScreenshot(&png, 100)); err != nil {
		return "none: " + err.Error()
	}
	b.shots.n++
	name := filepath.Join(b.shots.dir, fmt.Sprintf("%02d-%s", b.shots.n, shotName.ReplaceAllString(step, "-")))
	_ = os.WriteFile(name+".png", png, 0o644)
	_ = os.WriteFile(name+".html", []byte("<!-- "+url+" -->\n"+html), 0o644)
	b.shots.pages = append(b.shots.pages, name+".png ("+url+")")
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

// TestBrowserNewcomer walks a newcomer's whole path in headless Chromium, at a desktop's 1280 px and a
// phone's 390 px, each width with a fresh user in a browser profile of its own: find a model on the landing
// page, register, confirm from the mailbox, log in, top up 500 ₽ and buy a plan through the fake
// YooKassa, make a key with a ceiling, copy it and raise its ceiling, call the API with it through the
// openai-go SDK, chat in the web chat (streamed, Markdown rendered safely, an image model's picture
// shown, the history kept on the server: a second browser signed in to the account sees it), and find
// the requests with their exact credits in activity and the balance on the overview equal to the
// ledger. Every page on the way gets the fit test's checks (checkPage): labelled fields, named buttons,
// no sideways scroll, no words in the other language, no axe-core violation, no console error but an
// intended 4xx; the chat offers only served models.
func TestBrowserNewcomer(t *testing.T) {
	g := startWebGateway(t)
	b := newBrowser(t)
	for _, width := range []int{1280, 390} {
		t.Run(fmt.Sprintf("%dpx", width), func(t *testing.T) { walkNewcomer(t, g, b.in(t).freshProfile(), width) })
	}
}

func walkNewcomer(t *testing.T, g *webGateway, b *browser, width int) {
	email := fmt.Sprintf("browser%d-%d@example.com", width, time.Now().UnixNano())
	const password = "a long enough password"
	data := []string{email, "Basic"}
	// check performs a step that ends on a page of the gateway's, then checks that page at the width.
	check := func(step, intended string, actions ...chromedp.Action) {
		t.Helper()
		b.checkPage(fmt.Sprintf("%s at %d px", step, width), data, intended, actions...)
	}
	b.run("the window", atWidth(width))

	var shown int
	check("landing search", "", chromedp.Navigate(g.base+"/?lang=en"), b.fill("Search models", "gemini-2.5-flash-image"),
		b.press("Filter"), textContains("#models-count", "1 models"),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#models li[data-modality]')).filter(function (r) { return !r.hidden }).length`, &shown))
	if shown != 1 {
		t.Fatalf("the search shows %d models; want gemini-2.5-flash-image alone", shown)
	}
	check("register", "", chromedp.Navigate(g.base+"/register"),
		b.fill("Email", email), b.fill("Password", password), b.press("Create account"),
		textContains(`[role=status]`, "We sent a letter"))
	check("confirm", "", chromedp.Navigate(g.mail.letterTo(t, email).link(t)), textContains(`[role=status]`, "Your email is confirmed"))
	check("log in", "", b.fill("Email", email), b.fill("Password", password), b.press("Log in"),
		textContains("#bought", "0.00\u00a0₽"))

	// With no credits yet the chat says so in the page's words, not the API's. Shift+Enter breaks
	// the line; Enter sends.
	var draft, failed string
	check("chat without credits", "402", chromedp.Navigate(g.base+"/account/chat"), chromedp.Focus(field("Message"), chromedp.BySearch),
		chromedp.SendKeys(field("Message"), "line one", chromedp.BySearch),
		chromedp.KeyEvent("\r", chromedp.KeyModifiers(input.ModifierShift)),
		chromedp.SendKeys(field("Message"), "line two", chromedp.BySearch), chromedp.Value(field("Message"), &draft, chromedp.BySearch),
		chromedp.KeyEvent("\r"), chromedp.WaitVisible(`#conversation [role=alert]`), chromedp.Text(`#conversation [role=alert]`, &failed))
	if draft != "line one\nline two" || failed != "Not enough credits for this request. Top up your balance." {
		t.Fatalf("the draft %q; the refusal %q", draft, failed)
	}
	b.run("top up", chromedp.Navigate(g.base+"/account/topup"), b.fill("Amount, ₽", "500"), b.press("Go to payment"),
		chromedp.WaitVisible(button("Оплатить"), chromedp.BySearch))
	check("pay the top-up", "", b.press("Оплатить"), textContains("#payment-status", "The payment succeeded"))
	b.run("buy a plan", chromedp.Navigate(g.base+"/account/plans"), b.press(`Buy the plan "Basic"`),
		chromedp.WaitVisible(button("Оплатить"), chromedp.BySearch))
	check("pay the plan", "", b.press("Оплатить"), textContains("#payment-status", "The payment succeeded"))

	var key string
	check("create a key", "", chromedp.Navigate(g.base+"/account/keys"), b.fill("Key name", "browser"),
		b.fill("Spending ceiling, ₽ (empty: none)", "50"), chromedp.SetValue(field("Ceiling period"), "month", chromedp.BySearch),
		b.press("Create key"), chromedp.Value(field("New key"), &key, chromedp.BySearch),
		b.press("Copy key"), chromedp.WaitVisible(button("Copied"), chromedp.BySearch))
	if !strings.HasPrefix(key, "sk-shz-v1-") {
		t.Fatalf("the new key reads %q (screenshot: %s)", key, b.screenshot("key"))
	}
	var keyRow string
	b.run("the key is listed", chromedp.Text(`#keys tbody`, &keyRow))
	if !strings.Contains(keyRow, "browser") || !strings.Contains(keyRow, "50.00\u00a0₽ / month") || strings.Contains(keyRow, key) {
		t.Fatalf("keys table: %q", keyRow)
	}
	check("raise the ceiling", "", chromedp.Click(`#keys details summary`), chromedp.Clear(field("New ceiling of key browser, ₽ (empty: none)"), chromedp.BySearch),
		b.fill("New ceiling of key browser, ₽ (empty: none)", "75"), b.press("Save the ceiling of key browser"),
		textContains(`#keys tbody`, "75.00\u00a0₽ / month"))

	b.checkChatModels(g.base, key)

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
		check(step, "", append([]chromedp.Action{chromedp.SetValue(field("Model"), model, chromedp.BySearch),
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
  return e.getAttribute('data-generation') + ' ' + e.getAttribute('data-credits') })`, &costs))
	var turns int
	check("the history is kept", "", chromedp.Navigate(g.base+"/account/"), chromedp.Navigate(g.base+"/account/chat"),
		chromedp.WaitVisible(`#conversation li:nth-child(6)`), chromedp.Evaluate(`document.querySelectorAll('#conversation li').length`, &turns))
	if turns != 6 {
		t.Fatalf("%d messages in the chat after coming back; want 6", turns)
	}
	// The history is kept on the server: another browser, signed in to the account, opens it.
	other := b.freshProfile()
	var signedOut string
	other.run("another browser is signed out", atWidth(width), chromedp.Navigate(g.base+"/account/chat?lang=en"), chromedp.Location(&signedOut))
	if !strings.HasSuffix(signedOut, "/login") {
		t.Fatalf("the second browser shares the first's cookies: /account/chat is %s", signedOut)
	}
	other.run("another browser logs in", other.fill("Email", email), other.fill("Password", password),
		other.press("Log in"), textContains("#bought", "₽"))
	var seen []string
	other.checkPage(fmt.Sprintf("another browser sees the conversation at %d px", width), data, "", chromedp.Navigate(g.base+"/account/chat"), chromedp.WaitVisible(`#conversation li:nth-child(6)`),
		chromedp.Evaluate(`(function () {
  var t = document.querySelector('#conversation li:nth-child(3) .text'), cur = document.querySelector('#conversations a[aria-current=page]');
  return [String(document.querySelectorAll('#conversation li').length), document.querySelector('#conversation li:nth-child(1) .text').textContent,
    cur ? cur.textContent : '', String(window.pwned), String(t.querySelectorAll('img, script').length), t.querySelector('strong') ? 'bold' : ''];
})()`, &seen))
	if len(seen) != 6 || seen[0] != "6" || seen[1] != "Hello from the browser" || seen[2] != "Hello from the browser" || seen[3] != "undefined" || seen[4] != "0" || seen[5] != "bold" {
		t.Fatalf("another browser's chat: %q; want the 6 messages of the conversation \"Hello from the browser\", rendered safely", seen)
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
	check("activity", "", chromedp.Navigate(g.base+"/account/activity"))
	var spent int64
	for _, want := range gens {
		sel := fmt.Sprintf(`tr[data-generation=%q] .credits`, want.id)
		var got string
		b.run("activity "+want.id, chromedp.Navigate(g.base+"/account/activity"), chromedp.WaitVisible(sel), chromedp.Text(sel, &got))
		if digits(got) != strconv.FormatInt(want.credits, 10) || !strings.HasSuffix(got, "credits") {
			t.Fatalf("activity shows %q for %s; want %d credits", got, want.id, want.credits)
		}
		spent += want.credits
	}

	var pkg, bought string
	check("overview", "", chromedp.Navigate(g.base+"/account/"), chromedp.Text("#package-credits", &pkg), chromedp.Text("#bought-credits", &bought))
	wantPkg := 50_000_000 - spent
	if digits(pkg) != strconv.FormatInt(wantPkg, 10) || bought != "50,000,000\u00a0credits" {
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

// shotName keeps a screenshot's file name to letters, digits, dots and dashes.
var shotName = regexp.MustCompile(`[^A-Za-z0-9.]+`)

// digits is the digits of a formatted number: "49,999,660 credits" → "49999660".
func digits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}
