package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserChatStop stops a reply in the web chat: the fake upstream's stall
// fault sends a few words and then nothing, the Stop button shows while the
// reply streams, a press ends it, the words so far stay with "Stopped.", the
// button hides again, the console stays clean, and activity charges the
// request for what was generated: its prompt and the completion tokens so
// far at test/model's prices, fewer than a whole reply's.
func TestBrowserChatStop(t *testing.T) {
	g := startWebGateway(t)
	b := newBrowser(t)
	email := fmt.Sprintf("stop%d@example.com", time.Now().UnixNano())
	const password = "a long enough password"
	data := []string{email}
	b.run("register", atWidth(1280), chromedp.Navigate(g.base+"/register?lang=en"),
		b.fill("Email", email), b.fill("Password", password), b.press("Create account"), chromedp.WaitVisible(`[role=status]`))
	b.run("confirm", chromedp.Navigate(g.mail.letterTo(t, email).link(t)), textContains(`[role=status]`, "Your email is confirmed"))
	b.run("log in", b.fill("Email", email), b.fill("Password", password), b.press("Log in"), chromedp.WaitVisible("#bought"))
	if st := call(t, g.base, "POST", "/api/admin/accounts/"+g.accountIDOf(t, email)+"/topups", adminToken,
		map[string]any{"rubles": "100", "idempotency_key": "stop-topup"}, nil); st != 200 {
		t.Fatalf("operator top-up: %d", st)
	}

	const reply = `#conversation li:nth-child(2)`
	var hiddenBefore, hiddenAfter bool
	var partial, said string
	b.checkPage("stop a reply", data, "", chromedp.Navigate(g.base+"/account/chat"),
		chromedp.Evaluate(`document.getElementById('chat-stop').hidden`, &hiddenBefore),
		chromedp.SetValue(field("Model"), "faulty/fault-stall", chromedp.BySearch), b.fill("Message", "Tell me a long story"),
		b.press("Send"), chromedp.WaitVisible(button("Stop"), chromedp.BySearch), nonEmpty(reply+` .text`, &partial),
		b.press("Stop"), chromedp.WaitVisible(reply+` [role=alert]`), chromedp.Text(reply+` [role=alert]`, &said),
		chromedp.WaitNotVisible(`#chat-stop`), chromedp.Evaluate(`document.getElementById('chat-stop').hidden`, &hiddenAfter))
	if !hiddenBefore || !hiddenAfter || said != "Stopped." || partial == "" {
		t.Fatalf("Stop hidden before %v, after %v; the reply %q says %q; want the words so far and \"Stopped.\"", hiddenBefore, hiddenAfter, partial, said)
	}
	var kept string
	b.run("the stopped reply is kept", chromedp.Text(reply+` .text`, &kept))
	if !strings.HasPrefix(strings.TrimSpace(kept), strings.TrimSpace(partial)) {
		t.Fatalf("the stopped reply reads %q; it read %q when stopped", kept, partial)
	}

	// The request settles as cancelled once the gateway sees the browser gone.
	var row []string
	b.checkPage("activity", data, "", chromedp.ActionFunc(func(ctx context.Context) error {
		for {
			var status string
			err := chromedp.Run(ctx, chromedp.Navigate(g.base+"/account/activity"), chromedp.Evaluate(`(function () {
  var r = document.querySelector('#activity tr[data-generation]');
  return r ? r.querySelector('.badge').textContent : '';
})()`, &status))
			if err != nil || status == "cancelled" {
				return err
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("the stopped request never reads cancelled in activity (last %q): %w", status, ctx.Err())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}), chromedp.Evaluate(`(function () {
  var rows = document.querySelectorAll('#activity tr[data-generation]'), r = rows[0];
  return [String(rows.length), r.querySelector('code').textContent, r.getAttribute('data-credits'), r.querySelector('td.num').textContent];
})()`, &row))
	if len(row) != 4 || row[0] != "1" || row[1] != "faulty/fault-stall" {
		t.Fatalf("activity: %q; want the one stopped request of faulty/fault-stall", row)
	}
	credits, err := strconv.ParseInt(row[2], 10, 64)
	prompt, completion, ok := strings.Cut(row[3], " / ")
	p, perr := strconv.ParseInt(digits(prompt), 10, 64)
	c, cerr := strconv.ParseInt(digits(completion), 10, 64)
	if err != nil || !ok || perr != nil || cerr != nil {
		t.Fatalf("activity's row %q", row)
	}
	// The fake answers 8 tokens in a whole reply (harness_test.go), the stall fault fewer.
	// Its words are "tok0 tok1 …", a token each: the completion tokens charged are the words the page shows.
	if c < 1 || c >= 8 || p < 1 || credits != promptCredits*p+completionCredits*c || int64(len(strings.Fields(kept))) != c {
		t.Fatalf("the stopped request: %d credits for %d prompt and %d completion tokens, the page shows %q; want %d×%d + %d×%d, 1 to 7 completion tokens, one a word shown",
			credits, p, c, kept, promptCredits, p, completionCredits, c)
	}
}

// nonEmpty waits until the element has some text and reads it.
func nonEmpty(sel string, text *string) chromedp.Action {
	return chromedp.ActionFunc(func(ctx context.Context) error {
		for {
			if err := chromedp.Run(ctx, chromedp.Text(sel, text)); err != nil {
				return err
			}
			if strings.TrimSpace(*text) != "" {
				return nil
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("%s stays empty: %w", sel, ctx.Err())
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
}
