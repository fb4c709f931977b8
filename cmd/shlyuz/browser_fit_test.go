package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// fitAudit is the page's width against the window's, and the elements that
// stick out to the right (to name in a failure).
const fitAudit = `(function () {
  var se = document.scrollingElement, cw = document.documentElement.clientWidth, out = [];
  document.querySelectorAll('body *').forEach(function (e) {
    var r = e.getBoundingClientRect();
    if (r.width > 0 && r.right > cw + 0.5 && out.length < 5) {
      out.push(e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className && e.className.baseVal === undefined ? '.' + e.className : '') + ' right=' + Math.round(r.right));
    }
  });
  return {scroll: se.scrollWidth, inner: window.innerWidth, client: cw, out: out};
})()`

type fit struct {
	Scroll, Inner, Client int
	Out                   []string
}

// languageAudit lists text a person sees or hears in the other language:
// Latin words on a Russian page, Cyrillic on an English one. What is not
// the page's words is skipped: code, user data and names (translate="no"),
// a part in another language (lang="…"), closed boxes; and the words of
// the trade that Russian writes in Latin letters.
const languageAudit = `(function (ignore) {
  ignore = ignore || [];
  var lang = document.documentElement.lang, bad = [];
  var trade = /^(API|CSV|OpenAI|URL|base|Enter|Shift)$/;
  function check(text, where) {
    ignore.forEach(function (s) { text = text.split(s).join(' '); });
    if (lang === 'ru') {
      (text.match(/[A-Za-z]{2,}/g) || []).forEach(function (w) { if (!trade.test(w)) { bad.push(w + ' in ' + where + ': ' + text.trim().slice(0, 80)); } });
    } else if (/[А-Яа-яЁё]/.test(text)) {
      bad.push(where + ': ' + text.trim().slice(0, 80));
    }
  }
  function skipped(el) {
    if (el.closest('script,style,code,pre,[translate=no],select,textarea')) { return true; }
    var other = el.closest('[lang]');
    return other && other.getAttribute('lang') !== lang;
  }
  var walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    var el = walker.currentNode.parentElement;
    if (el && !skipped(el) && el.getClientRects().length) { check(walker.currentNode.textContent, el.tagName.toLowerCase()); }
  }
  document.querySelectorAll('[aria-label],[title],[placeholder],[alt]').forEach(function (el) {
    if (skipped(el)) { return; }
    ['aria-label', 'title', 'placeholder', 'alt'].forEach(function (a) { if (el.hasAttribute(a)) { check(el.getAttribute(a), a); } });
  });
  check(document.title, 'title');
  return bad.slice(0, 10);
})`

// atWidth sizes the window to width px in its color scheme: a phone (under
// 600 px) in the dark, a desktop in the light, so both schemes pass the same checks.
func atWidth(width int) chromedp.Tasks {
	media := emulation.SetEmulatedMedia().WithFeatures([]*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: colorScheme(width)}})
	return chromedp.Tasks{media, chromedp.EmulateViewport(int64(width), 900)}
}

func colorScheme(width int) string {
	if width < 600 {
		return "dark"
	}
	return "light"
}

// checkFit loads the page at the window width and checks it (checkPage); the
// 404 of a page that does not exist is the one console error it expects.
func (b *browser) checkFit(path string, width int, ignore []string, more ...chromedp.Action) {
	b.t.Helper()
	step := fmt.Sprintf("%s at %d px (%s)", path, width, colorScheme(width))
	b.console.drain()
	intended := ""
	if strings.Contains(path, "no-such") {
		intended = "404"
	}
	b.checkPage(step, ignore, intended, append(chromedp.Tasks{atWidth(width), chromedp.Navigate(path)}, more...)...)
}

// checkPage performs a step (run), then fails on a sideways scroll, on words
// in the other language (data strings in ignore aside), on an axe-core
// violation, and on a console error since the last check that does not
// contain intended (the status of a 4xx the page means to get; "": none).
func (b *browser) checkPage(step string, ignore []string, intended string, actions ...chromedp.Action) {
	b.t.Helper()
	var f fit
	var words []string
	ign, _ := json.Marshal(ignore)
	var violations []string
	awaited := func(p *runtime.EvaluateParams) *runtime.EvaluateParams { return p.WithAwaitPromise(true) }
	b.run(step, append(actions, chromedp.Evaluate(fitAudit, &f), chromedp.Evaluate(languageAudit+"("+string(ign)+")", &words),
		chromedp.Evaluate(axeSource(b.t), nil), chromedp.Evaluate(axeAudit, &violations, awaited))...)
	if len(violations) > 0 {
		b.t.Errorf("%s: axe-core %s finds:\n  %s", step, axeVersion, axeFailures(violations))
	}
	if f.Scroll > f.Inner || f.Scroll > f.Client {
		b.t.Errorf("%s scrolls sideways: scrollWidth %d, innerWidth %d, clientWidth %d; sticking out: %s (screenshot: %s)",
			step, f.Scroll, f.Inner, f.Client, strings.Join(f.Out, ", "), b.screenshot(step+" overflow"))
	}
	if len(words) > 0 {
		b.t.Errorf("%s has words in the other language:\n  %s", step, strings.Join(words, "\n  "))
	}
	for _, e := range b.console.drain() {
		if intended == "" || !strings.Contains(e, intended) {
			b.t.Errorf("%s: console error %s", step, e)
		}
	}
}

// checkChatModels fails when the chat offers a model the API does not list to key: one the gateway does not serve.
func (b *browser) checkChatModels(base, key string) {
	b.t.Helper()
	var offered []string
	b.run("the chat's models", chromedp.Navigate(base+"/account/chat"),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('#chat-model option')).map(function (o) { return o.value; })`, &offered))
	var listed struct {
		Data []struct{ ID string } `json:"data"`
	}
	if st := call(b.t, base, "GET", "/api/v1/models", key, nil, &listed); st != 200 || len(listed.Data) == 0 {
		b.t.Fatalf("the API's models: %d", st)
	}
	served := map[string]bool{}
	for _, m := range listed.Data {
		served[m.ID] = true
	}
	for _, m := range offered {
		if !served[m] {
			b.t.Errorf("the chat offers %s, which the gateway does not serve", m)
		}
	}
	if len(offered) == 0 {
		b.t.Error("the chat offers no model")
	}
}

// TestBrowserPagesFit loads every page of the web area, in both languages, at
// a phone's 390 px and a desktop's 1280 px, with data in every table (a key,
// requests, a payment), and fails when any scrolls sideways: tables become
// cards on a phone, code scrolls inside its own box.
func TestBrowserPagesFit(t *testing.T) {
	g := startWebGateway(t)
	b := newBrowser(t)
	email := fmt.Sprintf("fit-a-rather-long-address-%d@example.com", time.Now().UnixNano())
	const password = "a long enough password"

	anon := []string{"/", "/?all=1", "/models/test/model", "/register", "/login", "/reset", "/no-such-page"}
	for _, lang := range []string{"ru", "en"} {
		for _, w := range []int{390, 1280} {
			for _, p := range anon {
				b.checkFit(g.base+p+sep(p)+"lang="+lang, w, nil)
			}
		}
	}

	// Keyboard only: Tab reaches every control of the sign-up page in order, each with a visible focus ring.
	b.run("keyboard on the sign-up page", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(g.base+"/register?lang=en"))
	var reached []string
	for range 9 {
		var focus struct {
			What    string
			Outline string
		}
		b.run("tab", chromedp.KeyEvent("\t"), chromedp.Evaluate(`(function () {
  var e = document.activeElement, cs = getComputedStyle(e);
  return {what: e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.getAttribute('href') ? '[' + e.getAttribute('href') + ']' : ''),
    outline: cs.outlineStyle === 'none' || parseFloat(cs.outlineWidth) < 2 ? '' : cs.outlineStyle + ' ' + cs.outlineWidth};
})()`, &focus))
		if focus.Outline == "" {
			t.Errorf("%s has the keyboard's focus without a visible ring", focus.What)
		}
		reached = append(reached, focus.What)
	}
	if want := "a[#main] a[/] a[/login] a[/register] a[?lang=ru] input#email input#password button a[/login]"; strings.Join(reached, " ") != want {
		t.Errorf("Tab goes through %q; want %q", strings.Join(reached, " "), want)
	}

	b.run("register", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(g.base+"/register?lang=en"),
		b.fill("Email", email), b.fill("Password", password), b.press("Create account"), chromedp.WaitVisible(`[role=status]`))
	b.run("confirm", chromedp.Navigate(g.mail.letterTo(t, email).link(t)), textContains(`[role=status]`, "Your email is confirmed"))
	b.run("log in", b.fill("Email", email), b.fill("Password", password), b.press("Log in"), chromedp.WaitVisible("#bought"))
	if st := call(t, g.base, "POST", "/api/admin/accounts/"+g.accountIDOf(t, email)+"/topups", adminToken,
		map[string]any{"rubles": "1234567.89", "idempotency_key": "fit-topup"}, nil); st != 200 {
		t.Fatalf("operator top-up: %d", st)
	}
	b.run("top up", chromedp.Navigate(g.base+"/account/topup"), b.fill("Amount, ₽", "1,000"), b.press("Go to payment"),
		chromedp.WaitVisible(button("Оплатить"), chromedp.BySearch))
	var payment string
	b.run("pay", b.press("Оплатить"), textContains("#payment-status", "The payment succeeded"), chromedp.Location(&payment))
	var key string
	b.run("create a key", chromedp.Navigate(g.base+"/account/keys"),
		b.fill("Key name", "a key with a long name for the phone's narrow screen"), b.fill("Spending ceiling, ₽ (empty: none)", "1 500,50"),
		b.fill("Allowed models (optional)", "test/model, faulty/, google/gemini-2.5-flash-image"),
		b.press("Create key"), chromedp.Value(field("New key"), &key, chromedp.BySearch))
	for range 2 {
		if _, err := sdkChat(key, g.base, "test/model"); err != nil {
			t.Fatal(err)
		}
	}

	var allowed string
	b.run("the key's allowed models", chromedp.Navigate(g.base+"/account/keys"), chromedp.Text(`#keys tbody tr .allowed-models`, &allowed))
	if allowed != "Models: test/model, faulty/, google/gemini-2.5-flash-image" {
		t.Errorf("the key's row shows %q; want its allowed models", allowed)
	}
	// The chat offers only models this gateway serves: those the API lists to a key.
	b.checkChatModels(g.base, key)

	data := []string{email, "a key with a long name for the phone's narrow screen", "web chat", "Basic"}
	pages := []string{"/account/", "/account/keys", "/account/chat", "/account/activity", "/account/topup", "/account/plans",
		strings.TrimPrefix(payment, g.base), "/account/no-such-page", "/"}
	for _, lang := range []string{"ru", "en"} {
		for _, w := range []int{390, 1280} {
			for _, p := range pages {
				b.checkFit(g.base+p+sep(p)+"lang="+lang, w, data)
			}
			// The key's edit and revoke boxes, open.
			b.checkFit(g.base+"/account/keys?lang="+lang, w, data, chromedp.Click(`#keys details summary`), chromedp.Click(`#keys details + details summary`))
		}
	}
	// A new key's page, with its snippets, on a phone.
	b.run("a new key on a phone", chromedp.EmulateViewport(390, 900), chromedp.Navigate(g.base+"/account/keys?lang=ru"),
		b.fill("Название ключа", "phone"), b.press("Создать ключ"), chromedp.WaitVisible("#snippet-python"))
	var f fit
	b.run("the new key's page fits", chromedp.Evaluate(fitAudit, &f))
	if f.Scroll > f.Client {
		t.Errorf("the new key's page scrolls sideways at 390 px: %+v", f)
	}
}

func sep(path string) string {
	if strings.Contains(path, "?") {
		return "&"
	}
	return "?"
}
