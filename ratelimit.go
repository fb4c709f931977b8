package shlyuz

import (
	"strconv"
	"time"
)

// RateWindowLength is the span of a key's rate limit: a minute from the
// first request counted in it.
const RateWindowLength = time.Minute

// RateLimit is a key's optional pace: requests and tokens a minute (0: that
// one is not limited).
type RateLimit struct {
	RequestsPerMinute int64 `json:"requests_per_minute,omitempty"`
	TokensPerMinute   int64 `json:"tokens_per_minute,omitempty"`
}

// RateWindow counts a key's requests and tokens in its current minute.
type RateWindow struct {
	Start    time.Time
	Requests int64
	Tokens   int64
}

// RateState is what a key's rate limit allows now, for the X-RateLimit-*
// headers: the requests a minute (tokens, for a tokens-only limit), those
// left, and when the window ends.
type RateState struct {
	Limit      int64
	Remaining  int64
	Reset      time.Time
	RetryAfter time.Duration // set when the request was refused
}

// roll starts a new window when now is past the current one.
func (w *RateWindow) roll(now time.Time) {
	if w.Start.IsZero() || !now.Before(w.Start.Add(RateWindowLength)) {
		*w = RateWindow{Start: now}
	}
}

// Admit counts a request at now if the limit allows it: fewer requests than
// the limit in the window, and its tokens not yet spent. A refusal says when
// the window ends.
func (w *RateWindow) Admit(rl RateLimit, now time.Time) (RateState, bool) {
	w.roll(now)
	st := RateState{Limit: rl.RequestsPerMinute, Reset: w.Start.Add(RateWindowLength)}
	full := (rl.RequestsPerMinute > 0 && w.Requests >= rl.RequestsPerMinute) ||
		(rl.TokensPerMinute > 0 && w.Tokens >= rl.TokensPerMinute)
	if full {
		st.RetryAfter = st.Reset.Sub(now)
	} else {
		w.Requests++
	}
	if rl.RequestsPerMinute > 0 {
		st.Remaining = max(0, rl.RequestsPerMinute-w.Requests)
	} else { // a tokens-only limit: the headers tell tokens
		st.Limit, st.Remaining = rl.TokensPerMinute, max(0, rl.TokensPerMinute-w.Tokens)
	}
	return st, !full
}

// Hold counts a request's estimated tokens at its admission, so concurrent
// requests cannot all pass a tokens-a-minute limit before any has settled;
// it returns the window they were counted in, for Settle.
func (w *RateWindow) Hold(tokens int64, now time.Time) time.Time {
	w.roll(now)
	w.Tokens = AddChecked(w.Tokens, tokens)
	return w.Start
}

// Settle replaces a held estimate by the tokens the request used: in the
// window it was held in, the estimate is taken back; a later window counts
// only what was used.
func (w *RateWindow) Settle(held int64, heldIn time.Time, used int64, now time.Time) {
	w.roll(now)
	if w.Start.Equal(heldIn) {
		w.Tokens = max(0, w.Tokens-max(held, 0))
	}
	w.Tokens = AddChecked(w.Tokens, used)
}

// ErrRateLimitedKey is a key over its rate limit.
func ErrRateLimitedKey(rl RateLimit, st RateState) *Error {
	e := ErrRateLimited(st.RetryAfter, "This key's rate limit (%s) is reached; retry after %s.", rl.describe(), st.Reset.UTC().Format(time.RFC3339))
	e.RateLimit = &st
	return e
}

func (rl RateLimit) describe() string {
	switch {
	case rl.RequestsPerMinute > 0 && rl.TokensPerMinute > 0:
		return strconv.FormatInt(rl.RequestsPerMinute, 10) + " requests and " + strconv.FormatInt(rl.TokensPerMinute, 10) + " tokens a minute"
	case rl.RequestsPerMinute > 0:
		return strconv.FormatInt(rl.RequestsPerMinute, 10) + " requests a minute"
	}
	return strconv.FormatInt(rl.TokensPerMinute, 10) + " tokens a minute"
}
