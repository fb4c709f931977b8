package actors

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	shlyuz "github.com/shlyuz/shlyuz"
	directory "github.com/shlyuz/shlyuz/cluster"
)

// failingDir answers every request with one error.
type failingDir struct {
	Directory
	err error
}

func (d failingDir) Request(string, string, any, time.Duration) (any, error) { return nil, d.err }

// A request to an account's actor that fails because the account is between
// nodes (a restart's time-out, a dead letter, no activation yet, a member
// gone) is the retryable 503 account_moving with Retry-After; anything else
// is a 500.
func TestAccountRequestFailuresWhileMovingAreRetryable(t *testing.T) {
	for _, tc := range []struct {
		name   string
		err    error
		status int
		code   string
	}{
		{"protoactor time-out after a restart", actor.ErrTimeout, 503, "account_moving"},
		{"dead letter", actor.ErrDeadLetter, 503, "account_moving"},
		{"no activation", fmt.Errorf("%w of account", directory.ErrNoActivation), 503, "account_moving"},
		{"member left", directory.ErrMemberLeft, 503, "account_moving"},
		{"anything else", errors.New("boom"), 500, "internal_error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &Gateway{deps: deps{dir: failingDir{err: tc.err}}, timeout: time.Second}
			_, err := g.request("acc", KindAccount, &acctBalance{})
			var e *shlyuz.Error
			if !errors.As(err, &e) {
				t.Fatalf("%v is not the gateway's error", err)
			}
			if e.Status != tc.status || e.Code != tc.code {
				t.Fatalf("%d %s, want %d %s", e.Status, e.Code, tc.status, tc.code)
			}
			if tc.status == 503 && e.RetryAfter != time.Second {
				t.Fatalf("Retry-After %v, want 1s", e.RetryAfter)
			}
		})
	}
}
