package actors

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"slices"
	"sync"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/tokens"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"
)

// ChatCall is one chat request as the HTTP layer parsed it.
type ChatCall struct {
	GenerationID   string
	KeyHash        string
	Models         []string // the requested model, then the client's fallbacks
	Fields         map[string]json.RawMessage
	Stream         bool
	MaxTokens      int64 // max_tokens or max_completion_tokens; 0: absent
	N              int64 // choices asked for ("n"); 0: one
	Prompt         tokens.PromptEstimate
	Order          []string // provider.order: upstream names to try first
	AllowFallbacks bool
	Started        time.Time
	Native         *shlyuz.NativeRequest // the request in the client's own protocol, for an upstream that speaks it
	Only, Ignore   []string              // provider.only / provider.ignore: upstream names
	Sort           string                // provider.sort: price, latency or throughput (route_prefs.go)
	// Policy is what the client asks of the upstreams' data handling and
	// weights (provider.data_collection, zdr, quantizations; route_prefs.go).
	Policy Policy
	// RequireParameters (provider.require_parameters): only upstreams that carry
	// every parameter the request sets may serve it (require_params.go).
	RequireParameters bool
	// Room lends the adapters the buffer of the client's body (shlyuz.BodyRoom).
	Room *shlyuz.BodyRoom
	// User is the client's end user ("user"), kept on the generation record.
	User string
	// WebSearches are the most web searches the request may have the
	// upstream run (its server tools' max_uses): reserved for at the
	// model's web search fee, and billed as the upstream reports them.
	WebSearches int64
	// SearchesAlways: the upstream bills WebSearches searches for every
	// call whatever its usage says (OpenAI's search models, Perplexity's
	// Sonar: a search per request, their usage names none).
	SearchesAlways bool
	// WebSearchField names the member that asked for the searches, for the
	// 400 of a model without a search price ("tools" when unset).
	WebSearchField string
	// LeftOut are what the client asked for that no upstream of the call
	// could carry and the protocol handler left out (a Responses request's
	// hosted tools, "tools.web_search"): recorded on the generation with
	// the dropped parameters.
	LeftOut []string
	// Web is the web search the request asks the gateway to run (websearch.go).
	Web *WebPlugin
	// MaxPrice is provider.max_price (max_price.go); nil: no bound.
	MaxPrice *MaxPrice
}

// Receipt is what a finished call used and cost; Credits is exactly the debit.
type Receipt struct {
	// MaxTokens is the completion ceiling the gateway sent upstream when it
	// is not the client's own: the client set none (what the key, the
	// balance and the model allowed), or set more than the model's limit or
	// than the key and the balance afford; 0 when the client's cap went.
	MaxTokens    int64
	Usage        shlyuz.Usage
	Credits      shlyuz.Credits
	Details      shlyuz.CreditsDetails // how Credits adds up; its parts sum to it
	Model        string
	Upstream     string
	FinishReason string
	Status       string
	// Err, under durable settlement, is why the charge was not committed: the
	// reply must not be finished (ErrChargeNotCommitted).
	Err error
}

// call is the state of one request between reservation and settlement.
type call struct {
	g         *Gateway
	c         *ChatCall
	keyID     string
	accountID string
	model     *shlyuz.PricedModel
	held      shlyuz.Credits // the account's hold: the most this call may be charged
	maxTokens int64
	attempts  []shlyuz.Attempt
	upstream  *Upstream // the one that serves the call
	slot      slot      // the breakers' leave held at slotUp
	slotUp    *Upstream // nil: no slot held
	settled   bool
	over      bool                // the upstream reported more than was reserved
	estimated bool                // the usage is the gateway's count, not the upstream's
	dropped   []string            // the request's parameters the serving upstream does not take
	asked     *shlyuz.PricedModel // the retired model the client named, when its successor serves the call
	// tctx is the request's context when its span is recording (tracing.go);
	// attempt is the serving attempt's span, ended at settlement.
	tctx    context.Context
	attempt trace.Span
	upTime  time.Duration // spent in the serving upstream's call (to the first event for streams)
	slice   *slice        // the slice this node reserved the call from; nil: the owner's grant
	// sliceable: the call may reserve from this node's slice, its charge
	// settling through settleAccount (chat and media). A video job's hold
	// outlives the request at the owner, by its id: never from a slice.
	sliceable bool

	// A media call's worst case in credits at the catalog price (0: a chat
	// call, reserved by tokens), and which upstreams can serve it.
	fixed    shlyuz.Credits
	supports func(*Upstream) bool

	// The gateway's web search for the call (websearch.go): how many ran
	// (billed at searchFee micro-credits each) and what they found.
	searched  int64
	searchFee int64
	results   []shlyuz.WebResult
}

// Complete runs a non-streamed chat: reserve, call upstreams in order until one
// answers, settle. The receipt's Credits is what was debited.
func (g *Gateway) Complete(ctx context.Context, c *ChatCall) (*shlyuz.ChatResponse, *Receipt, error) {
	cl := &call{g: g, c: c, sliceable: true}
	var resp *shlyuz.ChatResponse
	err := cl.run(ctx, func(ctx context.Context, u *Upstream, req *shlyuz.UpstreamRequest) error {
		var err error
		ctx, cancel := context.WithTimeout(ctx, u.Config.Timeout)
		defer cancel()
		resp, err = u.Provider.Chat(ctx, req)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	cl.release(nil)
	if len(cl.results) > 0 {
		resp.Choices, _ = annotate(resp.Choices, "message", citations(cl.results))
	}
	u := resp.Usage
	if u.PromptTokens == 0 && u.CompletionTokens == 0 { // no usage: never free, bill our count
		cl.estimated = true
		u = shlyuz.Usage{PromptTokens: c.Prompt.ReserveFor(cl.model.ID), CompletionTokens: tokens.EstimateCompletion(resp.Choices)} // the prompt by its bound, never a likely count
		resp.Usage = u
	}
	r := cl.settleInsured(u, shlyuz.GenerationCompleted, resp.FinishReason)
	if r.Err != nil { // durable settlement: no committed charge, no reply
		return nil, nil, r.Err
	}
	return resp, r, nil
}

// Stream is an open, reserved upstream stream. Next passes events on; Finish
// must be called exactly once when the stream ends for any reason.
type Stream struct {
	*call
	up     shlyuz.ChatStream
	cancel context.CancelFunc
	first  *shlyuz.StreamEvent
	ended  bool // the upstream ended before its first event
	cited  bool // the web search's citations went out

	mu      sync.Mutex
	usage   *shlyuz.Usage
	counted int64
	finish  string
	done    bool
}

// OpenStream reserves and opens an upstream stream, trying upstreams in order
// until one has produced its first event: nothing reaches the client before
// that, so a failed upstream can still be replaced by the next.
func (g *Gateway) OpenStream(ctx context.Context, c *ChatCall) (*Stream, error) {
	s := &Stream{call: &call{g: g, c: c, sliceable: true}}
	err := s.run(ctx, func(ctx context.Context, u *Upstream, req *shlyuz.UpstreamRequest) error {
		ctx, cancel := context.WithCancel(ctx)
		fbCtx, fbCancel := context.WithTimeout(ctx, u.Config.FirstByteTimeout)
		defer fbCancel()
		stop := context.AfterFunc(fbCtx, func() {
			if errors.Is(fbCtx.Err(), context.DeadlineExceeded) {
				cancel()
			}
		})
		up, err := u.Provider.ChatStream(ctx, req)
		if err != nil {
			stop()
			cancel()
			if errors.Is(fbCtx.Err(), context.DeadlineExceeded) {
				return shlyuz.ErrUpstreamTimeout("The upstream %q sent nothing within %s.", u.Config.Name, u.Config.FirstByteTimeout)
			}
			return err
		}
		ev, err := up.Next()
		stop()
		if err != nil && !errors.Is(err, io.EOF) {
			_ = up.Close()
			cancel()
			if errors.Is(fbCtx.Err(), context.DeadlineExceeded) {
				return shlyuz.ErrUpstreamTimeout("The upstream %q sent nothing within %s.", u.Config.Name, u.Config.FirstByteTimeout)
			}
			return err
		}
		s.up, s.cancel = up, cancel
		if err == nil {
			s.observe(&ev)
			s.cite(&ev)
			s.first = &ev
		} else {
			s.ended = true
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// Next returns the next event, io.EOF at the normal end, or the upstream's error.
func (s *Stream) Next() (shlyuz.StreamEvent, error) {
	if s.first != nil {
		ev := *s.first
		s.first = nil
		return ev, nil
	}
	if s.ended {
		return shlyuz.StreamEvent{}, io.EOF
	}
	ev, err := s.up.Next()
	if err == nil {
		s.mu.Lock()
		s.observe(&ev)
		s.mu.Unlock()
		s.cite(&ev)
	}
	return ev, err
}

// cite puts the web search's citations on the first chunk with a delta.
func (s *Stream) cite(ev *shlyuz.StreamEvent) {
	if len(s.results) == 0 || s.cited || ev.Data == nil {
		return
	}
	ev.Data, s.cited = annotateChunk(ev.Data, citations(s.results))
}

func (s *Stream) observe(ev *shlyuz.StreamEvent) {
	if ev.Usage != nil {
		u := *ev.Usage
		s.usage = &u
	}
	s.counted += ev.CompletionTokens
	if ev.FinishReason != "" {
		s.finish = ev.FinishReason
	}
}

// MaxTokens is the completion ceiling the gateway decided for the stream
// (see Receipt.MaxTokens); 0 when the client's own cap went upstream.
func (s *Stream) MaxTokens() int64 { return s.decidedMaxTokens() }

// decidedMaxTokens is the ceiling sent upstream when the client set none, or
// when the model's output limit or what the call can pay for lowered the
// client's.
func (cl *call) decidedMaxTokens() int64 {
	if cl.fixed > 0 || cl.c.MaxTokens > 0 && cl.maxTokens >= cl.c.MaxTokens {
		return 0 // the client's own cap went upstream
	}
	return cl.maxTokens // chosen, or the client's lowered
}

// Model is the model that serves the stream.
func (s *Stream) Model() string { return s.model.ID }

// Finish ends the stream and settles it. outcome is nil for a normal end,
// ErrClientGone when the client went away (billed for what was generated),
// or the upstream's error (costs nothing).
func (s *Stream) Finish(outcome error) *Receipt {
	s.mu.Lock()
	if s.done {
		s.mu.Unlock()
		return nil
	}
	s.done = true
	usage, counted, finish := s.usage, s.counted, s.finish
	s.mu.Unlock()
	s.cancel()
	_ = s.up.Close()
	status := shlyuz.GenerationCompleted
	switch {
	case outcome == nil:
	case errors.Is(outcome, ErrClientGone):
		status, finish = shlyuz.GenerationCancelled, "cancelled"
	default:
		s.release(outcome)
		return s.fail(outcome)
	}
	u := shlyuz.Usage{}
	if usage != nil {
		u = *usage
	} else { // no usage from the upstream: bill the prompt's bound (never a likely count) and what we saw
		s.estimated = true
		prompt := s.c.Prompt.ReserveFor(s.model.ID)
		u = shlyuz.Usage{PromptTokens: prompt, CompletionTokens: counted, TotalTokens: prompt + counted}
	}
	if status == shlyuz.GenerationCancelled {
		s.release(errClientGone)
		return s.settle(u, status, finish)
	}
	s.release(nil)
	return s.settleInsured(u, status, finish)
}

// settleInsured settles a finished call, but for OpenRouter's zero-completion
// insurance: a reply that ended with no completion token and no finish
// reason (the upstream produced nothing) costs nothing; its record keeps the
// usage the upstream reported.
func (cl *call) settleInsured(u shlyuz.Usage, status, finish string) *Receipt {
	if finish == "" && u.CompletionTokens <= 0 { // the web search still costs its fee, as on OpenRouter
		var b shlyuz.Bill
		b.AddSearches(cl.searched, cl.searchFee)
		return cl.settleBill(b, u.Normalized(), status, finish)
	}
	return cl.settle(u, status, finish)
}

// ErrClientGone is the outcome of a stream whose client disconnected.
var ErrClientGone = errClientGone

type attemptFunc func(ctx context.Context, u *Upstream, req *shlyuz.UpstreamRequest) error

// run reserves and tries the candidates (models × upstreams) in order until
// one succeeds. On success the call holds its reservation and its slot; on
// failure both are released and the failure is recorded.
func (cl *call) run(ctx context.Context, attempt attemptFunc) error {
	cl.traceFrom(ctx)
	cat := cl.g.Catalog()
	models := make([]*shlyuz.PricedModel, 0, len(cl.c.Models))
	var asked []*shlyuz.PricedModel // by models' index: the retired model its successor stands for
	for i, id := range cl.c.Models {
		m, err := variantOf(cat, id, cl.c)
		if err != nil {
			return err
		}
		if m.ID != id { // served by its successor (the operator's choice)
			if asked == nil {
				asked = make([]*shlyuz.PricedModel, len(cl.c.Models))
			}
			asked[i], _ = cat.Retired(id)
		}
		if api := mediaAPI(m); cl.fixed == 0 && api != "" { // priced by its medium, not by tokens of chat
			return shlyuz.ErrInvalidValue("model", "The model %q is served by %s, not by chat completions.", id, api)
		}
		models = append(models, m)
	}
	if err := cl.g.checkPrefs(cl.c); err != nil {
		return err
	}
	if cl.c.Web != nil {
		if err := cl.g.webReady(cl.c); err != nil {
			return err
		}
	}
	var last error
	for i, m := range models {
		route, routed := cl.g.upstreamsFor(m.ID, cl.c.Order, cl.c.AllowFallbacks)
		ups := cl.g.preferUpstreams(routed, cl.c)
		if cl.supports != nil {
			ups = slices.DeleteFunc(ups, func(u *Upstream) bool { return !cl.supports(u) })
		}
		ups, priced := cl.g.withinMaxPrice(ups, m, cl.c)
		ups, unsupported := requireParameters(ups, cl.c, m.ID)
		if len(ups) == 0 { // nothing could serve it: no reservation, no charge
			last = cl.g.noUpstream(m.ID, cl.c.Order)
			if len(routed) > 0 && len(cl.c.Only)+len(cl.c.Ignore) > 0 {
				last = excludedAll(m.ID, routed)
			}
			if name := cl.c.Policy.unmet(routed); name != "" && len(routed) > 0 {
				last = policyUnmet(m.ID, name)
			}
			if len(unsupported) > 0 {
				last = unsupportedParameters(m.ID, unsupported)
			}
			if priced && len(unsupported) == 0 {
				last = shlyuz.ErrInvalidValue("provider.max_price", "provider.max_price: no upstream of %q is priced within it (GET /api/v1/models/%s/endpoints lists their prices, in credits; /api/pricing the rate and K).", m.ID, m.ID)
			}
			continue
		}
		if cl.c.WebSearches > 0 && m.Price.WebSearchMicro == 0 { // a fee the gateway could not bill
			field := cmp.Or(cl.c.WebSearchField, "tools")
			last = shlyuz.ErrInvalidValue(field, "The model %q has no web search price here: its web search (%s) is not served.", m.ID, field)
			continue
		}
		upstreamModel := route.UpstreamName(m.ID)
		rs := cl.span("shlyuz.reserve", trace.SpanKindInternal)
		err := cl.reserve(m, ups)
		if rs != nil {
			rs.SetAttributes(attrModel.String(m.ID), attrHeld.Int64(int64(cl.held)))
			endSpan(rs, err)
		}
		if err != nil {
			if cl.model == nil {
				return err // nothing reserved: a money or key error ends the request
			}
			last = err
			continue
		}
		if asked != nil {
			cl.asked = asked[i]
		}
		if err := cl.search(ctx); err != nil {
			cl.fail(err)
			return err
		}
		for _, u := range ups {
			req := &shlyuz.UpstreamRequest{
				GenerationID: cl.c.GenerationID, Model: m.ID, UpstreamModel: upstreamModel,
				Fields: cl.c.Fields, MaxTokens: cl.maxTokens, Stream: cl.c.Stream, Native: cl.c.Native,
				Room: cl.c.Room, ExtraParameters: u.Config.Parameters,
			}
			if err := shlyuz.NativeUnfit(u.Provider, req); err != nil {
				cl.note(u, m.ID, err)
				last = err
				continue // another upstream may speak the client's protocol
			}
			err := cl.tryUpstream(ctx, attempt, m, u, req)
			if err == nil {
				return nil
			}
			last = err
			if ctx.Err() != nil { // the client is gone: nothing more to try
				cl.fail(err)
				return err
			}
			var e *shlyuz.Error
			if !errors.As(err, &e) || !e.UpstreamFault || !cl.c.AllowFallbacks {
				break // provider backups are for the upstream's faults, and only when allowed
			}
		}
		// The next model of the client's list is tried on any error the
		// model gave (OpenRouter's model fallbacks), whatever allow_fallbacks says.
	}
	cl.fail(last)
	return last
}

// tryUpstream calls the upstream for the model, again after a back-off
// while its answer is Transient and the upstream's retry budget allows
// (nothing has reached the client before the attempt returns). Every try
// is an attempt on the generation record.
func (cl *call) tryUpstream(ctx context.Context, attempt attemptFunc, m *shlyuz.PricedModel, u *Upstream, req *shlyuz.UpstreamRequest) error {
	backoff := u.Config.Retry.Backoff
	for try := 1; ; try++ {
		if err := cl.acquire(u, m.ID); err != nil {
			cl.note(u, m.ID, err)
			return err
		}
		actx, as := cl.attemptSpan(u, req)
		if as == nil {
			actx = ctx
		}
		began := time.Now()
		err := attempt(actx, u, req)
		cl.upTime = time.Since(began)
		if err == nil {
			cl.attempt = as // ended at settlement, with the usage
			cl.note(u, m.ID, nil)
			cl.g.stats.observeLatency(u, cl.upTime)
			cl.upstream = u
			cl.dropped = shlyuz.DroppedParameters(u.Config.Protocol, m.ID, u.Config.Parameters, cl.c.Fields)
			return nil
		}
		if as != nil {
			endSpan(as, err)
		}
		cl.release(err)
		cl.note(u, m.ID, err)
		wait, ok := cl.retryWait(ctx, u, err, try, backoff)
		if !ok {
			return err
		}
		backoff *= 2
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// retryWait is how long to wait before trying the upstream again after
// err, the try-th attempt's failure; ok is false when it is not to be
// tried again: the error is not Transient, the tries are used up, or the
// wait (the back-off, or the upstream's Retry-After when longer) would end
// past the upstream's retry budget.
func (cl *call) retryWait(ctx context.Context, u *Upstream, err error, try int, backoff time.Duration) (time.Duration, bool) {
	var e *shlyuz.Error
	if !errors.As(err, &e) || !e.Transient || try >= u.Config.Retry.Attempts || ctx.Err() != nil {
		return 0, false
	}
	wait := max(backoff, e.RetryAfter)
	if time.Since(cl.c.Started)+wait > u.Config.Retry.Budget {
		return 0, false
	}
	return wait, true
}

// mediaAPI names the API that serves a model priced by its medium, or ""
// for a chat model.
func mediaAPI(m *shlyuz.PricedModel) string {
	switch {
	case m.Image != nil:
		return "the image API (POST /api/v1/images)"
	case m.Video != nil:
		return "the video API (POST /api/v1/videos)"
	case m.Speech != nil:
		return "the speech API (POST /api/v1/audio/speech)"
	case m.MakesEmbeddings():
		return "the embeddings API (POST /api/v1/embeddings)"
	case m.Transcription != nil && !m.Outputs("text"):
		return "the transcription API (POST /api/v1/audio/transcriptions)"
	}
	return ""
}

// upstreamsFor is the model's route and the upstreams to try, the client's order first.
func (g *Gateway) upstreamsFor(model string, order []string, fallbacks bool) (*shlyuz.Route, []*Upstream) {
	route := shlyuz.PickRoute(g.routes, model)
	if route == nil {
		return nil, nil
	}
	names := route.Upstreams
	if len(order) > 0 {
		names = make([]string, 0, len(route.Upstreams))
		for _, o := range order {
			if slices.Contains(route.Upstreams, o) {
				names = append(names, o)
			}
		}
		if fallbacks {
			for _, n := range route.Upstreams {
				if !slices.Contains(names, n) {
					names = append(names, n)
				}
			}
		}
	} else if !fallbacks && len(names) > 1 {
		names = names[:1]
	}
	out := make([]*Upstream, 0, len(names))
	for _, n := range names {
		out = append(out, g.upstreams[n])
	}
	return route, out
}

func (cl *call) note(u *Upstream, model string, err error) {
	a := shlyuz.Attempt{Upstream: u.Config.Name, Model: model, Status: 200}
	if err != nil {
		e := shlyuz.AsError(err)
		a.Status, a.Error = e.Status, e.Message
	}
	cl.attempts = append(cl.attempts, a)
}

// reserve holds the worst case of the model at the key and the account,
// both kept by the account's activation: one round trip.
func (cl *call) reserve(m *shlyuz.PricedModel, ups []*Upstream) error {
	g, now := cl.g, cl.g.now()
	ref, kerr := g.keyRef(cl.c.KeyHash)
	if kerr != nil {
		return kerr
	}
	msg := &acctReserve{GenID: cl.c.GenerationID, KeyID: ref.keyID, Requester: g.calls.self, Model: m.ID, Now: now}
	if cl.fixed > 0 {
		for _, u := range ups {
			msg.Fixed = max(msg.Fixed, scaleCredits(cl.fixed, u.Config.PriceMultiplier))
		}
	} else {
		prompt := cl.c.Prompt.ReserveFor(m.ID)    // images by the model's rule
		kinds := cl.c.PromptKinds(m.ID, &m.Price) // the dearer prompt prices this request can be billed at
		worst := m.Price.BoundFor(prompt, kinds)
		search := m.Price.WebSearchMicro
		for _, u := range ups {
			scaled := m.Price.Scale(u.Config.PriceMultiplier)
			worst = worst.Max(scaled.BoundFor(prompt, kinds))
			search = max(search, scaled.WebSearchMicro)
		}
		// The searches are a fee per request as the request fee is.
		worst.RequestMicro = shlyuz.AddChecked(worst.RequestMicro, shlyuz.MulChecked(cl.c.WebSearches, search))
		if cl.c.Web != nil { // the gateway's own search, at its engine's fee
			worst.RequestMicro = shlyuz.AddChecked(worst.RequestMicro, g.WebSearchFee())
		}
		// A cap above what the model can produce is clamped, not refused: reserved and sent
		// upstream as the model's limit (SDKs ask for 128,000 of a model they do not know).
		maxTokens := cl.c.MaxTokens
		if m.MaxOutputTokens > 0 && maxTokens > m.MaxOutputTokens {
			maxTokens = m.MaxOutputTokens
		}
		msg.Prompt, msg.MaxTokens, msg.MaxOut, msg.Price, msg.N = prompt, maxTokens, m.MaxOutput(), worst, cl.c.N
		msg.MinTokens = thinkingNeed(cl.c, ups)
	}
	if cl.slice != nil { // reserved again for another model: the slice's reservation goes back
		g.slices.release(cl.slice, cl.held, 0)
		cl.slice = nil
	}
	var ar *reserved
	if cl.model == nil && cl.sliceable {
		ar, cl.slice = g.sliceGrant(ref.accountID, msg)
	}
	if ar == nil {
		var err error
		if ar, err = g.grant(ref.accountID, msg); err != nil {
			return err
		}
	}
	if cl.model == nil {
		g.inFlight.Add(1)
	}
	g.reserved.Add(ar.Amount - cl.held)
	cl.keyID, cl.accountID, cl.model = ar.KeyID, ar.AccountID, m
	cl.held, cl.maxTokens = ar.Amount, ar.Tokens
	return nil
}

// acquire takes a slot at the upstream for the model: its concurrency cap and
// its breakers' leave (the upstream's and the model's there).
func (cl *call) acquire(u *Upstream, model string) error {
	s, err := u.guard.acquire(model)
	if err != nil {
		return err
	}
	cl.slot, cl.slotUp = s, u
	return nil
}

// release returns the slot with the outcome.
func (cl *call) release(outcome error) {
	if cl.slotUp == nil {
		return
	}
	cl.slotUp.guard.release(cl.slot, outcome)
	cl.slot, cl.slotUp = slot{}, nil
}

// settle charges the usage (past the hold if need be) and writes the record.
func (cl *call) settle(u shlyuz.Usage, status, finish string) *Receipt {
	if cl.settled {
		return nil
	}
	price := cl.model.Price.Scale(cl.upstream.Config.PriceMultiplier) // the serving upstream's price
	u = u.Normalized()
	if cl.c.SearchesAlways {
		u.WebSearches = max(u.WebSearches, cl.c.WebSearches)
	}
	if status == shlyuz.GenerationCompleted {
		cl.g.stats.observeThroughput(cl.upstream, u.CompletionTokens, time.Since(cl.c.Started))
	}
	b := price.Bill(u)
	b.AddSearches(cl.searched, cl.searchFee)
	return cl.settleBill(b, u, status, finish)
}

// settleCredits charges credits (past the hold if need be) and writes the
// record; the whole charge is the input part of its details (a media call).
func (cl *call) settleCredits(credits shlyuz.Credits, u shlyuz.Usage, status, finish string) *Receipt {
	return cl.settleBill(shlyuz.Bill{Credits: credits, Details: shlyuz.CreditsDetails{Input: credits}}, u, status, finish)
}

// settleBill charges the bill in full: an upstream that reported more than
// the reservation allowed is charged what it billed, past the hold (the
// balance may go below zero and then grants nothing until topped up), and
// the generation says so (over_reserved; counted and logged, never silent).
func (cl *call) settleBill(b shlyuz.Bill, u shlyuz.Usage, status, finish string) *Receipt {
	if cl.settled {
		return nil
	}
	cl.settled = true
	cl.endAttempt(u, finish)
	ss := cl.span("shlyuz.settle", trace.SpanKindInternal)
	billed := b.Credits
	over := billed > cl.held
	if u.TotalTokens == 0 {
		u.TotalTokens = u.PromptTokens + u.CompletionTokens
	}
	now := cl.g.now()
	cl.over = over
	gen := cl.record(now, status, finish, u, b.Credits, &b.Details)
	if over {
		cl.g.log.Warn("the upstream reported more than was reserved: charged in full, past the hold",
			"generation", gen.ID, "model", gen.Model, "upstream", gen.Upstream, "billed", billed, "reserved", cl.held,
			"prompt_tokens", u.PromptTokens, "completion_tokens", u.CompletionTokens)
	}
	if ss != nil {
		ss.SetAttributes(attrCredits.Int64(int64(b.Credits)), attrHeld.Int64(int64(cl.held)), attrStatus.String(status),
			attrInputTokens.Int64(u.PromptTokens), attrOutputTokens.Int64(u.CompletionTokens), attrGeneration.String(gen.ID))
		ss.End()
	}
	cs := cl.span("shlyuz.commit", trace.SpanKindInternal)
	err := cl.settleAccount(&acctSettle{GenID: cl.c.GenerationID, KeyID: cl.keyID, Amount: b.Credits, Tokens: u.TotalTokens, Generation: gen, Now: now})
	if cs != nil {
		cs.SetAttributes(attribute.Bool("shlyuz.durable", cl.g.durable))
		endSpan(cs, err)
	}
	return &Receipt{Usage: u, Credits: b.Credits, Details: b.Details, Model: cl.model.ID, Upstream: gen.Upstream, FinishReason: finish, Status: status, Err: err,
		MaxTokens: cl.decidedMaxTokens()}
}

// fail releases the reservation (if any) and records the failure; it costs nothing.
func (cl *call) fail(err error) *Receipt {
	if cl.settled || cl.model == nil {
		return nil
	}
	cl.settled = true
	if cl.attempt != nil { // a stream that failed after its first event
		endSpan(cl.attempt, err)
		cl.attempt = nil
	}
	now := cl.g.now()
	gen := cl.record(now, shlyuz.GenerationFailed, "error", shlyuz.Usage{}, 0, nil)
	_ = cl.settleAccount(&acctSettle{GenID: cl.c.GenerationID, KeyID: cl.keyID, Generation: gen, Now: now})
	return &Receipt{Model: cl.model.ID, Upstream: gen.Upstream, FinishReason: "error", Status: shlyuz.GenerationFailed}
}

// settleAccount tells the account actor: its mailbox keeps the order, so a
// later request of the same client sees the charge, and a graceful shutdown
// drains every account actor before the last commit. Under durable
// settlement it waits until the charge is committed (see settle_durable.go).
func (cl *call) settleAccount(m *acctSettle) error {
	if s := cl.slice; s != nil { // this node's view of the slice shrinks first (slices.go)
		cl.slice = nil
		cl.g.slices.release(s, cl.held, m.Amount)
		m.Slice, m.Requester, m.Epoch, m.Held = true, cl.g.slices.self, s.epoch, cl.held
		if cl.g.durable { // the answer may bring more of the slice
			if m.Refill = cl.g.slices.refill(s, cl.held); m.Refill > 0 {
				m.From = cl.g.sys.Address()
				defer cl.g.slices.refilled(s)
			}
		}
	}
	if !cl.g.durable {
		cl.g.dir.Send(cl.accountID, KindAccount, m)
		cl.g.calls.done(cl.accountID, m.GenID)
		return nil
	}
	return cl.g.settleDurably(cl.accountID, m)
}

// generationRecord is a generation with its details in one allocation: the
// record outlives the call (the journal holds it until its commit), and its
// details are three more small objects otherwise.
type generationRecord struct {
	shlyuz.Generation
	prompt     shlyuz.PromptTokensDetails
	completion shlyuz.CompletionTokensDetails
	credits    shlyuz.CreditsDetails
}

// record makes the call's generation record (details, when not nil, say how
// the charge adds up), tells the observer, and ends the call's share of the
// in-flight gauges.
func (cl *call) record(now time.Time, status, finish string, u shlyuz.Usage, credits shlyuz.Credits, details *shlyuz.CreditsDetails) *shlyuz.Generation {
	upstream := ""
	if cl.upstream != nil {
		upstream = cl.upstream.Config.Name
	}
	cl.g.inFlight.Add(-1)
	cl.g.reserved.Add(-cl.held)
	r := &generationRecord{Generation: shlyuz.Generation{
		ID: cl.c.GenerationID, AccountID: cl.accountID, KeyID: cl.keyID, Model: cl.model.ID,
		Upstream: upstream, Attempts: cl.attempts, Streamed: cl.c.Stream,
		PromptTokens: u.PromptTokens, CompletionTokens: u.CompletionTokens, Credits: credits, OverReserved: cl.over,
		LatencyMS: now.Sub(cl.c.Started).Milliseconds(), Status: status, FinishReason: finish, CreatedAt: now,
		Estimated: cl.estimated, Note: joinNotes(cl.lifecycleNote(), cl.loweredNote()), DroppedParameters: slices.Concat(cl.dropped, cl.c.LeftOut), User: cl.c.User,
	}, prompt: *u.PromptDetails(), completion: *u.CompletionDetails()}
	gen := &r.Generation
	gen.PromptDetails, gen.CompletionDetails = &r.prompt, &r.completion
	if details != nil {
		r.credits = *details
		gen.CreditsDetails = &r.credits
	}
	if cl.g.observe != nil {
		cl.g.observe(gen, now.Sub(cl.c.Started), cl.upTime)
	}
	return gen
}

// lifecycleNote is the generation's note on the model's lifecycle: served by the
// successor of the retired model asked for, or a deprecated model's warning.
func (cl *call) lifecycleNote() string {
	switch m := cl.model; {
	case cl.asked != nil:
		return shlyuz.SuccessorNote(cl.asked, m.ID)
	case !m.DeprecatedAt().IsZero() && m.Deprecated(cl.g.Catalog().Now()):
		return m.DeprecationNote()
	}
	return ""
}
