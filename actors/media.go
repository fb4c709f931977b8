package actors

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// MediaCall is one model call priced in its medium's unit (images, megapixels,
// image tokens, audio seconds, characters, video seconds) rather than by the
// chat path's prompt and completion tokens.
type MediaCall struct {
	GenerationID   string
	KeyHash        string
	Model          string   // the catalog id the client asked for
	Order          []string // provider.order: upstream names to try first
	AllowFallbacks bool
	Only, Ignore   []string // provider.only / provider.ignore: upstream names
	Sort           string   // provider.sort: price, latency or throughput
	Stream         bool     // recorded on the generation (speech streamed to the client)
	Started        time.Time
	Fields         map[string]json.RawMessage // the client's body, for UpstreamRequest.Fields
	// Worst is the most the call may cost at the catalog price (an upstream
	// price multiplier of 1), in credits. The reservation is Worst scaled by
	// the dearest candidate upstream's multiplier; it must be above zero.
	Worst shlyuz.Credits
	// Supports says whether an upstream can serve the call (its adapter
	// implements the medium's capability); nil: every upstream of the route.
	Supports func(*Upstream) bool
}

// MediaOpen calls one upstream for a media call. It returns nil once the
// upstream has accepted the call (for a one-shot call: once its result is in);
// an *shlyuz.Error with UpstreamFault set lets the call fall back to the next
// upstream. req carries the generation id, the model and its upstream name.
type MediaOpen func(ctx context.Context, u *Upstream, req *shlyuz.UpstreamRequest) error

// Media is a reserved media call that an upstream accepted. Exactly one of
// Settle or Fail must be called when it ends, whatever happened.
type Media struct{ *call }

// StartMedia reserves the call's worst case at the key and the account (402 or
// 403 when it cannot), then tries the route's upstreams in order (fallback on
// an upstream fault, as chat does) until open succeeds. On an error nothing is
// held and nothing is charged. The serving upstream's slot stays taken until
// Settle or Fail.
func (g *Gateway) StartMedia(ctx context.Context, c *MediaCall, open MediaOpen) (*Media, error) {
	if c.Worst <= 0 {
		return nil, shlyuz.ErrInternal(errMediaWorst)
	}
	cl := &call{g: g, fixed: c.Worst, supports: c.Supports, sliceable: true, c: &ChatCall{
		GenerationID: c.GenerationID, KeyHash: c.KeyHash, Models: []string{c.Model}, Fields: c.Fields,
		Stream: c.Stream, Order: c.Order, AllowFallbacks: c.AllowFallbacks, Started: c.Started,
		Only: c.Only, Ignore: c.Ignore, Sort: c.Sort,
	}}
	if err := cl.run(ctx, attemptFunc(open)); err != nil {
		return nil, err
	}
	return &Media{cl}, nil
}

// Upstream is the upstream serving the call.
func (m *Media) Upstream() *Upstream { return m.upstream }

// Held is the reservation: the most Settle can charge.
func (m *Media) Held() shlyuz.Credits { return m.held }

// Settle ends the call and charges cost, the price of what was produced at the
// catalog price; the serving upstream's multiplier is applied here (rounded up)
// and the charge never exceeds the reservation. The receipt's Credits is
// exactly the debit. status is a shlyuz.Generation* status: Completed, or
// Cancelled for a client that left (billed for what it received).
func (m *Media) Settle(cost shlyuz.Credits, u shlyuz.Usage, status, finish string) *Receipt {
	m.release(nil)
	return m.settleCredits(scaleCredits(cost, m.upstream.Config.PriceMultiplier), u, status, finish)
}

// Fail ends the call at no cost and records it as failed, releasing the
// reservation; err is the outcome the upstream's breaker is told (nil when it
// was not the upstream's fault). A client that left before it received
// anything is Settle(0, …, shlyuz.GenerationCancelled, "cancelled") instead.
func (m *Media) Fail(err error) *Receipt {
	m.release(err)
	return m.fail(err)
}

var errMediaWorst = errors.New("a media call's worst case must be above zero")

// scaleCredits is c times an upstream's price multiplier, rounded up (a zero
// multiplier is the default 1).
func scaleCredits(c shlyuz.Credits, f shlyuz.Decimal) shlyuz.Credits {
	if f.Sign() == 0 {
		return c
	}
	return f.MulInt(c).Ceil()
}
