package adaptertest

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// Target is an adapter under the transport checks.
type Target struct {
	// Provider makes the adapter pointed at the fake u, its configuration
	// changed by mod when mod is not nil.
	Provider func(t *testing.T, u *Upstream, mod func(*shlyuz.UpstreamConfig)) shlyuz.Provider
	// Request builds the gateway's request for a client's body to the
	// upstream model.
	Request func(t *testing.T, model string, stream bool, body string) *shlyuz.UpstreamRequest
	// Model is the upstream model of a request the fake answers in full.
	Model string
	// Faults comes before a fault's name ("fault-stall") in the upstream
	// model of a request the fake answers with that fault.
	Faults string
	// Lead is how many events a stream of the fake's four words delivers
	// before it stalls.
	Lead int
	// Closed is the adapter's ErrStreamClosed.
	Closed error
}

func (tg *Target) fault(t *testing.T, name string, stream bool) *shlyuz.UpstreamRequest {
	return tg.Request(t, tg.Faults+"fault-"+name, stream, HelloBody)
}

// Transport checks how the adapter bounds and gives up its calls: the
// timeouts of a call, of the first byte and between chunks, Close and the
// caller's cancellation unblocking a stream, kept-alive connections, and an
// upstream nobody listens for.
func Transport(t *testing.T, tg Target) {
	t.Run("chat_timeout", func(t *testing.T) {
		u := StartFake(t, fake.Options{}, nil)
		p := tg.Provider(t, u, func(c *shlyuz.UpstreamConfig) { c.Timeout = 50 * time.Millisecond })
		_, err := p.Chat(context.Background(), tg.fault(t, "hang", false))
		AsError(t, err, 504, "upstream_timeout", true)
	})
	t.Run("first_byte_timeout", func(t *testing.T) {
		u := StartFake(t, fake.Options{}, nil)
		p := tg.Provider(t, u, func(c *shlyuz.UpstreamConfig) { c.FirstByteTimeout = 50 * time.Millisecond })
		_, err := p.ChatStream(context.Background(), tg.fault(t, "slow", true))
		AsError(t, err, 504, "upstream_timeout", true)
	})
	t.Run("idle_timeout", func(t *testing.T) {
		u := StartFake(t, fake.Options{ReplyTokens: 4}, nil)
		p := tg.Provider(t, u, func(c *shlyuz.UpstreamConfig) { c.IdleTimeout = 50 * time.Millisecond })
		st, err := p.ChatStream(context.Background(), tg.fault(t, "stall", true))
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		events, err := ReadAll(st)
		AsError(t, err, 504, "upstream_timeout", true)
		if len(events) != tg.Lead {
			t.Errorf("%d events before the stall, want %d", len(events), tg.Lead)
		}
	})
	t.Run("close_during_next", func(t *testing.T) { closeDuringNext(t, &tg) })
	t.Run("context_canceled", func(t *testing.T) { contextCanceled(t, &tg) })
	t.Run("connection_reused", func(t *testing.T) {
		u := StartFake(t, fake.Options{}, nil)
		p := tg.Provider(t, u, nil)
		for i := 0; i < 5; i++ {
			st, err := p.ChatStream(context.Background(), tg.Request(t, tg.Model, true, HelloBody))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ReadAll(st); err != io.EOF {
				t.Fatal(err)
			}
			st.Close()
			if _, err := p.Chat(context.Background(), tg.Request(t, tg.Model, false, HelloBody)); err != nil {
				t.Fatal(err)
			}
		}
		if n := u.Conns.Load(); n != 1 {
			t.Errorf("%d connections for 10 sequential calls, want 1", n)
		}
	})
	t.Run("unreachable", func(t *testing.T) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close() // nothing listens there now
		p := tg.Provider(t, StartFake(t, fake.Options{}, nil), func(c *shlyuz.UpstreamConfig) {
			c.Name, c.BaseURL = "gone", "http://"+addr
		})
		_, err = p.Chat(context.Background(), tg.Request(t, tg.Model, false, HelloBody))
		e := AsError(t, err, 502, "upstream_error", true)
		if !strings.Contains(e.Message, "unreachable") || strings.Contains(e.Message, addr) {
			t.Errorf("message = %q", e.Message)
		}
		_, err = p.ChatStream(context.Background(), tg.Request(t, tg.Model, true, HelloBody))
		AsError(t, err, 502, "upstream_error", true)
	})
}

// closeDuringNext: Close, from many goroutines at once, unblocks a Next
// waiting on a stalled upstream, which returns the adapter's ErrStreamClosed.
func closeDuringNext(t *testing.T, tg *Target) {
	u := StartFake(t, fake.Options{ReplyTokens: 4}, nil)
	p := tg.Provider(t, u, nil)
	st, err := p.ChatStream(context.Background(), tg.fault(t, "stall", true))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < tg.Lead; i++ { // the words before the stall; the next Next blocks
		if _, err := st.Next(); err != nil {
			t.Fatal(err)
		}
	}
	started := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		close(started)
		_, err := st.Next()
		done <- err
	}()
	<-started
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ { // Close is idempotent and safe from many goroutines
		wg.Add(1)
		go func() { defer wg.Done(); st.Close() }()
	}
	wg.Wait()
	select {
	case err := <-done:
		if !errors.Is(err, tg.Closed) || !errors.Is(err, context.Canceled) {
			t.Errorf("Next after Close = %v, want ErrStreamClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Next still blocked after Close")
	}
	if err := st.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
}

// contextCanceled: the caller's cancellation comes back as context.Canceled,
// never an *Error, before the headers and after them.
func contextCanceled(t *testing.T, tg *Target) {
	arrived := make(chan struct{}, 4)
	u := StartFake(t, fake.Options{OnRequest: func(*http.Request, []byte) { arrived <- struct{}{} }}, nil)
	p := tg.Provider(t, u, nil)

	t.Run("chat", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-arrived; cancel() }()
		_, err := p.Chat(ctx, tg.fault(t, "hang", false))
		var e *shlyuz.Error
		if !errors.Is(err, context.Canceled) || errors.As(err, &e) {
			t.Errorf("err = %v, want context.Canceled and no *Error", err)
		}
	})
	t.Run("stream before headers", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-arrived; cancel() }()
		_, err := p.ChatStream(ctx, tg.fault(t, "hang", true))
		if err != context.Canceled {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
	t.Run("stream after headers", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		st, err := p.ChatStream(ctx, tg.fault(t, "stall", true))
		if err != nil {
			t.Fatal(err)
		}
		<-arrived
		defer st.Close()
		if _, err := st.Next(); err != nil {
			t.Fatal(err)
		}
		cancel()
		_, err = ReadAll(st)
		if err != context.Canceled {
			t.Errorf("err = %v, want context.Canceled", err)
		}
	})
}
