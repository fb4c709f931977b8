package gigachat

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/providers/internal/adaptertest"
	"github.com/shlyuz/shlyuz/providers/internal/sberauth"
)

// chatOK makes one plain call and one streamed call and fails the test unless both succeed.
func chatOK(t *testing.T, p *Provider) {
	t.Helper()
	if _, err := p.Chat(context.Background(), adaptertest.Request(t, "GigaChat", false, adaptertest.HelloBody)); err != nil {
		t.Fatalf("Chat: %v", err)
	}
	st, err := p.ChatStream(context.Background(), adaptertest.Request(t, "GigaChat", true, adaptertest.HelloBody))
	if err != nil {
		t.Fatalf("ChatStream: %v", err)
	}
	defer st.Close()
	if c := collect(t, st); c.err != nil {
		t.Fatalf("stream: %v", c.err)
	}
}

// TestRefreshAheadOfExpiry: with a refresh margin longer than the tokens'
// lifetime, every call finds its token about to expire and replaces it
// before using it, so no call ever meets a 401.
func TestRefreshAheadOfExpiry(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 2}, nil)
	u.Fake.SetGigaChatTokenTTL(2 * time.Second)
	p := u.provider(t, Options{RefreshMargin: 3 * time.Second}, nil)
	const rounds = 4
	for i := 0; i < rounds; i++ {
		chatOK(t, p) // two calls each
	}
	if n := u.Fake.GigaChatTokensIssued(); n != 2*rounds {
		t.Errorf("tokens issued = %d, want %d: one per call", n, 2*rounds)
	}
	if n := u.Fake.GigaChatUnauthorized(); n != 0 {
		t.Errorf("%d calls met a 401", n)
	}
}

// TestRefreshAheadByClock: the token is replaced once less than the margin
// is left by the adapter's clock, not before, and not by a 401.
func TestRefreshAheadByClock(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 2}, nil) // 30-minute tokens
	p := u.provider(t, Options{RefreshMargin: 5 * time.Minute}, nil)
	var offset atomic.Int64
	p.auth.Now = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }

	chatOK(t, p)
	if n := u.Fake.GigaChatTokensIssued(); n != 1 {
		t.Fatalf("tokens issued = %d, want 1", n)
	}
	offset.Store(int64(20 * time.Minute)) // 10 minutes left: keep it
	chatOK(t, p)
	if n := u.Fake.GigaChatTokensIssued(); n != 1 {
		t.Fatalf("tokens issued at 20 minutes = %d, want 1", n)
	}
	offset.Store(int64(26 * time.Minute)) // 4 minutes left: replace it
	if _, err := p.Chat(context.Background(), adaptertest.Request(t, "GigaChat", false, adaptertest.HelloBody)); err != nil {
		t.Fatal(err)
	}
	if n := u.Fake.GigaChatTokensIssued(); n != 2 {
		t.Fatalf("tokens issued at 26 minutes = %d, want 2", n)
	}
	if n := u.Fake.GigaChatUnauthorized(); n != 0 {
		t.Errorf("%d calls met a 401", n)
	}
}

// TestExpiredTokenRefreshedOnce: a token the upstream no longer takes (our
// clock says it is fine) costs one 401, one refresh, and the call succeeds.
func TestExpiredTokenRefreshedOnce(t *testing.T) {
	for _, stream := range []bool{false, true} {
		u := startFake(t, fake.Options{ReplyTokens: 2}, nil)
		p := u.provider(t, Options{}, nil)
		chatOK(t, p)
		if n := u.Fake.GigaChatTokensIssued(); n != 1 {
			t.Fatalf("tokens issued = %d", n)
		}
		u.Fake.ExpireGigaChatTokens()
		var err error
		if stream {
			var st shlyuz.ChatStream
			st, err = p.ChatStream(context.Background(), adaptertest.Request(t, "GigaChat", true, adaptertest.HelloBody))
			if err == nil {
				err = collect(t, st).err
				st.Close()
			}
		} else {
			_, err = p.Chat(context.Background(), adaptertest.Request(t, "GigaChat", false, adaptertest.HelloBody))
		}
		if err != nil {
			t.Fatalf("stream=%v: the call after expiry failed: %v", stream, err)
		}
		if n := u.Fake.GigaChatTokensIssued(); n != 2 {
			t.Errorf("stream=%v: tokens issued = %d, want 2 (exactly one refresh)", stream, n)
		}
		if n := u.Fake.GigaChatUnauthorized(); n != 1 {
			t.Errorf("stream=%v: 401s = %d, want 1", stream, n)
		}
		chatOK(t, p) // and the new token serves on
		if n := u.Fake.GigaChatTokensIssued(); n != 2 {
			t.Errorf("stream=%v: tokens issued after = %d, want 2", stream, n)
		}
	}
}

// TestConcurrentExpiredShareOneRefresh: many calls meeting the 401 of one
// expired token together bring one new token.
func TestConcurrentExpiredShareOneRefresh(t *testing.T) {
	u := startFake(t, fake.Options{ReplyTokens: 2}, nil)
	p := u.provider(t, Options{}, nil)
	chatOK(t, p)
	u.Fake.ExpireGigaChatTokens()
	const n = 12
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := p.Chat(context.Background(), adaptertest.Request(t, "GigaChat", false, adaptertest.HelloBody))
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := u.Fake.GigaChatTokensIssued(); got != 2 {
		t.Errorf("tokens issued = %d, want 2", got)
	}
}

// gate holds the OAuth endpoint's requests until released, and tells when one arrives.
type gate struct {
	arrived chan struct{}
	release chan struct{}
	once    sync.Once
	calls   atomic.Int64
}

func newGate() *gate {
	return &gate{arrived: make(chan struct{}, 100), release: make(chan struct{})}
}

func (g *gate) open() { g.once.Do(func() { close(g.release) }) }

func (g *gate) wrap(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == fakeOAuth {
			g.calls.Add(1)
			g.arrived <- struct{}{}
			<-g.release
		}
		h.ServeHTTP(w, r)
	})
}

func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// TestConcurrentShareOneRefresh: calls that need a token while one is being
// fetched wait for that fetch instead of starting their own.
func TestConcurrentShareOneRefresh(t *testing.T) {
	g := newGate()
	u := startFake(t, fake.Options{ReplyTokens: 2}, g.wrap)
	t.Cleanup(g.open) // before the server's shutdown, which waits for held handlers
	p := u.provider(t, Options{}, nil)
	joined := make(chan struct{}, 100)
	p.auth.OnJoin = func() { joined <- struct{}{} }

	const n = 8
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		stream := i%2 == 1
		go func() {
			if stream {
				st, err := p.ChatStream(context.Background(), adaptertest.Request(t, "GigaChat", true, adaptertest.HelloBody))
				if err == nil {
					err = collect(t, st).err
					st.Close()
				}
				errs <- err
				return
			}
			_, err := p.Chat(context.Background(), adaptertest.Request(t, "GigaChat", false, adaptertest.HelloBody))
			errs <- err
		}()
	}
	waitFor(t, g.arrived, "the token request")
	for i := 0; i < n-1; i++ {
		waitFor(t, joined, "the other calls to wait for the same refresh")
	}
	g.open()
	for i := 0; i < n; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if c := g.calls.Load(); c != 1 {
		t.Errorf("token requests = %d, want 1", c)
	}
	if c := u.Fake.GigaChatTokensIssued(); c != 1 {
		t.Errorf("tokens issued = %d, want 1", c)
	}
}

// TestRefreshSurvivesAWaiterGivingUp: the caller that started a refresh may
// leave; the others still get the token.
func TestRefreshSurvivesAWaiterGivingUp(t *testing.T) {
	g := newGate()
	u := startFake(t, fake.Options{ReplyTokens: 2}, g.wrap)
	t.Cleanup(g.open) // before the server's shutdown, which waits for held handlers
	p := u.provider(t, Options{}, nil)
	joined := make(chan struct{}, 10)
	p.auth.OnJoin = func() { joined <- struct{}{} }

	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() {
		_, err := p.Chat(ctx, adaptertest.Request(t, "GigaChat", false, adaptertest.HelloBody))
		first <- err
	}()
	waitFor(t, g.arrived, "the token request")
	second := make(chan error, 1)
	go func() {
		_, err := p.Chat(context.Background(), adaptertest.Request(t, "GigaChat", false, adaptertest.HelloBody))
		second <- err
	}()
	waitFor(t, joined, "the second call to wait for the refresh")
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Errorf("the cancelled call = %v", err)
	}
	g.open()
	if err := <-second; err != nil {
		t.Errorf("the second call = %v", err)
	}
	if c := g.calls.Load(); c != 1 {
		t.Errorf("token requests = %d, want 1", c)
	}
}

// TestFailedRefreshKeepsValidToken: an OAuth hiccup during an early refresh
// does not fail calls while the old token is still good.
func TestFailedRefreshKeepsValidToken(t *testing.T) {
	var failing atomic.Bool
	var failed atomic.Int64
	u := startFake(t, fake.Options{ReplyTokens: 2}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == fakeOAuth && failing.Load() {
				failed.Add(1)
				w.WriteHeader(http.StatusServiceUnavailable)
				return
			}
			h.ServeHTTP(w, r)
		})
	})
	p := u.provider(t, Options{RefreshMargin: 10 * time.Minute}, nil)
	var offset atomic.Int64
	p.auth.Now = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
	chatOK(t, p)
	failing.Store(true)
	offset.Store(int64(25 * time.Minute)) // inside the margin, not expired
	chatOK(t, p)
	chatOK(t, p)
	if n := failed.Load(); n != 1 {
		t.Errorf("failed token requests = %d, want 1: a failed early refresh waits %v before the next", n, sberauth.RefreshBackoff)
	}
	offset.Store(int64(25*time.Minute + sberauth.RefreshBackoff)) // the backoff is over: try again
	chatOK(t, p)
	if n := failed.Load(); n != 2 {
		t.Errorf("failed token requests = %d, want 2", n)
	}
	offset.Store(int64(31 * time.Minute)) // expired by our clock: no token to fall back on
	_, err := p.Chat(context.Background(), adaptertest.Request(t, "GigaChat", false, adaptertest.HelloBody))
	if e := adaptertest.AsError(t, err, 502, "upstream_error", true); !strings.Contains(e.Message, "OAuth endpoint failed") {
		t.Errorf("message %q", e.Message)
	}
	failing.Store(false)
	if _, err := p.Chat(context.Background(), adaptertest.Request(t, "GigaChat", false, adaptertest.HelloBody)); err != nil {
		t.Fatal(err)
	}
	if n := u.Fake.GigaChatTokensIssued(); n != 2 {
		t.Errorf("tokens issued = %d, want 2", n)
	}
}

var uuid4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// TestOAuthRequest checks the token request's wire shape.
func TestOAuthRequest(t *testing.T) {
	type seen struct {
		method string
		header http.Header
		form   url.Values
	}
	var mu sync.Mutex
	var calls []seen
	u := startFake(t, fake.Options{}, func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == fakeOAuth {
				body, _ := io.ReadAll(r.Body)
				form, _ := url.ParseQuery(string(body))
				mu.Lock()
				calls = append(calls, seen{r.Method, r.Header.Clone(), form})
				mu.Unlock()
				r.Body = io.NopCloser(strings.NewReader(string(body)))
			}
			h.ServeHTTP(w, r)
		})
	})
	p := u.provider(t, Options{}, func(c *shlyuz.UpstreamConfig) { c.Scope = "GIGACHAT_API_CORP" })
	chatOK(t, p)
	u.Fake.ExpireGigaChatTokens()
	chatOK(t, p)
	mu.Lock()
	defer mu.Unlock()
	if len(calls) != 2 {
		t.Fatalf("token requests = %d, want 2", len(calls))
	}
	for _, c := range calls {
		if c.method != http.MethodPost {
			t.Errorf("method %s", c.method)
		}
		if got := c.header.Get("Authorization"); got != "Basic "+testKey {
			t.Errorf("Authorization = %q", got)
		}
		if !uuid4.MatchString(c.header.Get("RqUID")) {
			t.Errorf("RqUID = %q", c.header.Get("RqUID"))
		}
		if c.header.Get("Accept") != "application/json" || c.header.Get("Content-Type") != "application/x-www-form-urlencoded" {
			t.Errorf("headers %v", c.header)
		}
		if c.form.Get("scope") != "GIGACHAT_API_CORP" {
			t.Errorf("form %v", c.form)
		}
	}
	if calls[0].header.Get("RqUID") == calls[1].header.Get("RqUID") {
		t.Error("RqUID reused")
	}
}

func TestExpiryUnits(t *testing.T) {
	now := time.Unix(1_768_996_000, 0)
	for _, c := range []struct {
		at   int64
		want time.Time
	}{
		{1_768_997_975_000, time.UnixMilli(1_768_997_975_000)}, // milliseconds, as GigaChat sends
		{1_768_997_975, time.Unix(1_768_997_975, 0)},           // seconds, defensively
		{0, now.Add(30 * time.Minute)},                         // none: the documented lifetime
	} {
		if got := sberauth.Expiry(c.at, now); !got.Equal(c.want) {
			t.Errorf("sberauth.Expiry(%d) = %v, want %v", c.at, got, c.want)
		}
	}
}

func TestRqUID(t *testing.T) {
	seen := map[string]bool{}
	for i := 0; i < 100; i++ {
		id := sberauth.NewRqUID()
		if !uuid4.MatchString(id) || seen[id] {
			t.Fatalf("RqUID %q bad or repeated", id)
		}
		seen[id] = true
	}
}
