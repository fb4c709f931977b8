package actors

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	shlyuz "github.com/shlyuz/shlyuz"
	directory "github.com/shlyuz/shlyuz/cluster"
	"github.com/sony/gobreaker/v2"
)

// Directory reaches the cluster's virtual actors by identity and kind.
// cluster.Directory implements it over a protoactor cluster.
type Directory interface {
	Request(identity, kind string, msg any, timeout time.Duration) (any, error)
	Send(identity, kind string, msg any)
	// PID activates (or finds) a virtual actor, for actors that talk to each other.
	PID(identity, kind string) (*actor.PID, error)
	// RequestAll asks every activation of the kind this node reached, and waits for all.
	RequestAll(kind string, msg any, timeout time.Duration) error
	// Broadcast tells every activation of the kind this node reached, without waiting.
	Broadcast(kind string, msg any)
	// Forget drops the remembered PID of an activation that stopped (when it
	// is still the one remembered), so that idle identities cost nothing.
	Forget(identity, kind string, pid *actor.PID)
}

// Upstream is one configured upstream with its protocol adapter.
type Upstream struct {
	Config   shlyuz.UpstreamConfig
	Provider shlyuz.Provider
	pid      *actor.PID
	guard    *guard
}

// Options build a Gateway.
type Options struct {
	System    *actor.ActorSystem
	Store     shlyuz.Store
	Journal   *Journal
	Location  *time.Location // key periods; default Europe/Moscow
	Now       func() time.Time
	Upstreams []*Upstream
	Routes    []shlyuz.Route
	Models    []shlyuz.Model // the embedded catalog plus the config's models
	Log       *slog.Logger
	// OnBreaker is told every breaker state change (for metrics).
	OnBreaker func(upstream string, state gobreaker.State)
	// Observe is told every finished model call: its record, its whole
	// duration and the time spent upstream (for metrics).
	Observe func(g *shlyuz.Generation, total, upstream time.Duration)
	// Cluster: the node's membership lease (nil: none, claims are
	// unconditional), and durable settlement: a reply ends only after its
	// charge is committed.
	Lease         Lease
	DurableSettle bool
	// ActorIdle passivates an account actor (with its keys) that received
	// nothing for that long and holds no reservation (0: never).
	ActorIdle time.Duration
	// PassivateBatch bounds the passivations of one idle sweep (0: 2,000):
	// protoactor's placement actor forgets a stopped activation in time
	// linear in the number it holds, and a burst of them would hold up the
	// activations of new requests behind it.
	PassivateBatch int64
	// Video: video jobs' storage, polling and time limits.
	Video VideoOptions
	// MaxKeys caps the keys of an account that are not revoked (0:
	// DefaultMaxKeys; negative: no cap).
	MaxKeys int
	// WebSearch is the engine of the web plugin, :online and
	// web_search_options (nil: none; those are then a 400).
	WebSearch *WebEngine
}

// DefaultMaxKeys is an account's key cap when Options leave it out: far more
// than one account's people and programs need, few enough that a list of
// them, a page of it or their state in the account's activation stays small.
const DefaultMaxKeys = 1_000

type deps struct {
	store   shlyuz.Store
	journal *Journal
	loc     *time.Location
	now     func() time.Time
	dir     Directory
	lease   Lease
	durable bool
	idle    time.Duration // passivate idle account actors after it; 0: never
	budget  atomic.Int64  // passivations the current sweep still allows
	actives atomic.Int64  // live account activations of this node
	active  sync.Map      // account id → activation: this node's live account activations
	calls   *callRegistry // this node's calls in flight, for new account activations
	slices  *sliceBook    // this node's slices of accounts served elsewhere
	keyIdx  keyIndex      // key hash → key and account ids
	// inFlight counts this node's model calls between reservation and
	// settlement, granting those asking for their reservation, settling
	// those waiting for their charge's commit: a settlement that finds
	// none but itself (no other settlement is on its way) commits at once
	// in the account actor (Journal.AddCommit).
	inFlight, granting, settling atomic.Int64
}

// alone says whether no call of this node but the settling one is asking
// for its reservation, holding one or settling.
func (d *deps) alone() bool {
	return d.inFlight.Load() == 0 && d.granting.Load() == 0 && d.settling.Load() <= 1
}

// Gateway is what the HTTP layer calls. Its methods run in the caller's goroutine.
type Gateway struct {
	deps
	sys            *actor.ActorSystem
	root           *actor.PID // the root supervisor
	log            *slog.Logger
	baseModel      []shlyuz.Model
	catalog        atomic.Pointer[shlyuz.Catalog]
	reloading      sync.Mutex // one ReloadCatalog at a time: the last to read the store is the last to store the catalog
	upstreams      map[string]*Upstream
	stats          statsTable // what was measured of each upstream (route_prefs.go)
	routes         []shlyuz.Route
	timeout        time.Duration
	observe        func(g *shlyuz.Generation, total, upstream time.Duration)
	stopSweep      chan struct{} // ends the idle sweeper; nil: none
	passivateBatch int64         // passivations allowed a sweep
	reserved       atomic.Int64  // credits they hold
	video          *videoRuntime
	slicesHere     atomic.Bool  // tests: slices for accounts served on this node too
	remoteSettles  atomic.Int64 // durable settlements sent to other nodes, since the start
	maxKeys        int          // an account's key cap; 0: none
	web            *WebEngine   // the web search engine; nil: none
}

// InFlight is the number of model calls between reservation and settlement.
func (g *Gateway) InFlight() int64 { return g.inFlight.Load() }

// ReservedCredits is what the calls in flight hold.
func (g *Gateway) ReservedCredits() int64 { return g.reserved.Load() }

// New makes a gateway and spawns its provider actors. Call Kinds to register the
// cluster kinds, then Attach the directory before serving.
func New(o Options) (*Gateway, error) {
	if o.Location == nil {
		loc, err := time.LoadLocation("Europe/Moscow")
		if err != nil {
			return nil, err
		}
		o.Location = loc
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.PassivateBatch <= 0 {
		o.PassivateBatch = 2_000
	}
	switch {
	case o.MaxKeys == 0:
		o.MaxKeys = DefaultMaxKeys
	case o.MaxKeys < 0:
		o.MaxKeys = 0
	}
	g := &Gateway{
		passivateBatch: o.PassivateBatch,
		maxKeys:        o.MaxKeys,
		web:            o.WebSearch,
		deps: deps{store: o.Store, journal: o.Journal, loc: o.Location, now: o.Now, lease: o.Lease, durable: o.DurableSettle, idle: o.ActorIdle,
			calls: newCallRegistry(memberID(o.Lease))},
		sys:       o.System,
		log:       o.Log,
		baseModel: o.Models,
		upstreams: make(map[string]*Upstream, len(o.Upstreams)),
		routes:    o.Routes,
		timeout:   10 * time.Second,
		observe:   o.Observe,
		video:     newVideoRuntime(o.Video, o.Log),
	}
	root, err := startSupervisor(o.System)
	if err != nil {
		return nil, fmt.Errorf("start the root supervisor: %w", err)
	}
	g.root = root
	g.slices = newSliceBook(g.calls.self, func(account string, msg any) { g.dir.Send(account, KindAccount, msg) })
	if _, err := o.System.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return &callsActor{reg: g.calls, slices: g.slices} }), callsActorName); err != nil {
		return nil, fmt.Errorf("spawn the call registry: %w", err)
	}
	for _, u := range o.Upstreams {
		u.Config = u.Config.WithDefaults()
		u.guard = newGuard(u.Config, u.Provider, o.OnBreaker, o.Now)
		gd := u.guard
		pid, err := spawnUnder(o.System, root, "upstream-"+u.Config.Name,
			actor.PropsFromProducer(func() actor.Actor { return &providerActor{guard: gd} }))
		if err != nil {
			return nil, fmt.Errorf("spawn provider actor %s: %w", u.Config.Name, err)
		}
		u.pid = pid
		g.upstreams[u.Config.Name] = u
	}
	for _, r := range o.Routes {
		for _, name := range r.Upstreams {
			if _, ok := g.upstreams[name]; !ok {
				return nil, fmt.Errorf("route %q names the upstream %q, which is not configured", r.Match, name)
			}
		}
	}
	return g, nil
}

// Kinds are the cluster kinds' actor producers, by kind name.
func (g *Gateway) Kinds() map[string]actor.Producer {
	return map[string]actor.Producer{
		KindAccount: func() actor.Actor { return &accountActor{deps: &g.deps} },
		KindVideo:   func() actor.Actor { return &videoActor{g: g} },
	}
}

// Attach connects the gateway to the cluster and loads the catalog's pricing.
func (g *Gateway) Attach(ctx context.Context, dir Directory) error {
	g.dir = dir
	if g.idle > 0 {
		g.stopSweep = make(chan struct{})
		go g.sweepIdle(g.stopSweep)
	}
	g.sys.EventStream.Subscribe(g.onTopology)
	return g.ReloadCatalog(ctx)
}

// Drain waits until every account actor has handled what was sent to it
// (settlements are one-way messages), so that the journal holds every charge.
func (g *Gateway) Drain(timeout time.Duration) error {
	return g.dir.RequestAll(KindAccount, &drain{}, timeout)
}

// ReloadCatalog rebuilds the priced catalog from the models, the stored
// overrides and the stored pricing.
func (g *Gateway) ReloadCatalog(ctx context.Context) error {
	// Two reloads at once (the operator's and the exchange-rate feed's)
	// could otherwise store their catalogs in the other order than they
	// read the settings, leaving a stale rate in force that no later change
	// corrects.
	g.reloading.Lock()
	defer g.reloading.Unlock()
	s, ok, err := g.store.Settings(ctx)
	if err != nil {
		return err
	}
	if !ok {
		s.Pricing = DefaultPricing()
	}
	overrides, err := g.store.ModelOverrides(ctx)
	if err != nil {
		return err
	}
	g.catalog.Store(shlyuz.NewCatalog(shlyuz.MergeModels(g.baseModel, overrides), s.Pricing))
	return nil
}

// DefaultPricing is used until the operator sets one: 90 rubles per dollar, K = 1.
func DefaultPricing() shlyuz.Pricing {
	return shlyuz.Pricing{Rate: shlyuz.MustDecimal("90"), K: shlyuz.MustDecimal("1")}
}

// Catalog is the current priced catalog.
func (g *Gateway) Catalog() *shlyuz.Catalog { return g.catalog.Load() }

// Store is the gateway's store.
func (g *Gateway) Store() shlyuz.Store { return g.store }

// request asks an account's actor: a node that left the cluster while
// serving it, an account not placed yet (membership settling after a
// restart), an activation gone before it answered (a dead letter) or no
// answer in time (a request to a node that is restarting) is a moving
// account (503, retry), any other failure a 500.
func (g *Gateway) request(identity, kind string, msg any) (any, error) {
	res, err := g.dir.Request(identity, kind, msg, g.timeout)
	if moving(err) {
		return nil, shlyuz.ErrAccountMoving()
	}
	if err != nil {
		return nil, shlyuz.ErrInternal(err)
	}
	return res, nil
}

// moving reports whether a failed request to an account's actor is the
// account moving between nodes (the client may retry in a moment).
func moving(err error) bool {
	return errors.Is(err, directory.ErrMemberLeft) || errors.Is(err, directory.ErrNoActivation) ||
		errors.Is(err, actor.ErrTimeout) || errors.Is(err, actor.ErrDeadLetter)
}

// KeyStatus is a key with its spend in the current period.
type KeyStatus struct {
	Key      shlyuz.Key
	Spent    shlyuz.Credits
	Reserved shlyuz.Credits
	ResetsAt time.Time
}

// CheckKey authenticates a key by its hash.
func (g *Gateway) CheckKey(hash string) (*KeyStatus, *shlyuz.Error) {
	ref, kerr := g.keyRef(hash)
	if kerr != nil {
		return nil, kerr
	}
	res, err := g.request(ref.accountID, KindAccount, &keyCheck{KeyID: ref.keyID, Now: g.now()})
	if err != nil {
		return nil, shlyuz.AsError(err)
	}
	st := res.(*keyState)
	if st.Err != nil {
		return nil, st.Err
	}
	return &KeyStatus{Key: st.Key, Spent: st.Spent, Reserved: st.Reserved, ResetsAt: st.ResetsAt}, nil
}

// AccountBalance is an account's balance and its credits held by requests in flight.
type AccountBalance struct {
	Balance  shlyuz.Balance
	Reserved shlyuz.Credits
}

// Balance reads an account's live balance.
func (g *Gateway) Balance(accountID string) (*AccountBalance, *shlyuz.Error) {
	res, err := g.request(accountID, KindAccount, &acctBalance{Now: g.now()})
	if err != nil {
		return nil, shlyuz.AsError(err)
	}
	r := res.(*acctBalanceReply)
	if r.Err != nil {
		return nil, r.Err
	}
	return &AccountBalance{Balance: r.Balance, Reserved: r.Reserved}, nil
}

// TopUp adds bought credits to an account, durably, once per idempotency key.
func (g *Gateway) TopUp(accountID string, credits shlyuz.Credits, idempotencyKey string) (*shlyuz.Balance, bool, *shlyuz.Error) {
	e := shlyuz.LedgerEntry{ID: "topup-" + accountID + "-" + idempotencyKey, Kind: shlyuz.EntryTopUp, BoughtDelta: credits}
	return g.applyEntry(accountID, &acctApply{Entry: e, Now: g.now()})
}

// GrantPlan gives an account a plan's package for one period, replacing what is left of the old one.
func (g *Gateway) GrantPlan(accountID string, p shlyuz.Plan, idempotencyKey string) (*shlyuz.Balance, bool, *shlyuz.Error) {
	e := shlyuz.LedgerEntry{ID: "plan-" + accountID + "-" + idempotencyKey}
	return g.applyEntry(accountID, &acctApply{Entry: e, Plan: &p, Now: g.now()})
}

func (g *Gateway) applyEntry(accountID string, m *acctApply) (*shlyuz.Balance, bool, *shlyuz.Error) {
	res, err := g.request(accountID, KindAccount, m)
	if err != nil {
		return nil, false, shlyuz.AsError(err)
	}
	r := res.(*acctApplied)
	if r.Err != nil {
		return nil, false, r.Err
	}
	return &r.Balance, r.Duplicate, nil
}

// RevokeKey revokes a key in the store and in its live actor.
func (g *Gateway) RevokeKey(ctx context.Context, keyID string) *shlyuz.Error {
	k, err := g.store.Key(ctx, keyID)
	if errors.Is(err, shlyuz.ErrNoRows) {
		return shlyuz.ErrNotFound("Key " + keyID)
	}
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	now := g.now()
	if err := g.store.RevokeKey(ctx, keyID, now); err != nil {
		return shlyuz.ErrInternal(err)
	}
	res, err := g.request(k.AccountID, KindAccount, &keyRevoke{KeyID: k.ID, At: now})
	if err != nil {
		return shlyuz.AsError(err)
	}
	g.recallSlices(k.AccountID, k.ID, res)
	return nil
}

// Generation finds a generation record of the account, committed or not yet.
func (g *Gateway) Generation(ctx context.Context, accountID, id string) (*shlyuz.Generation, *shlyuz.Error) {
	gen, ok := g.journal.Pending(id)
	if !ok {
		var err error
		gen, err = g.store.Generation(ctx, id)
		if errors.Is(err, shlyuz.ErrNoRows) {
			return nil, shlyuz.ErrNotFound("Generation " + id)
		}
		if err != nil {
			return nil, shlyuz.ErrInternal(err)
		}
	}
	if gen.AccountID != accountID {
		return nil, shlyuz.ErrNotFound("Generation " + id)
	}
	return &gen, nil
}

// UpstreamState is the breaker state and the slots in use of one upstream.
type UpstreamState struct {
	Name     string
	State    gobreaker.State
	InFlight int
}

// Upstreams reports every upstream's state.
func (g *Gateway) Upstreams() []UpstreamState {
	out := make([]UpstreamState, 0, len(g.upstreams))
	for name, u := range g.upstreams {
		res, err := g.sys.Root.RequestFuture(u.pid, &providerStats{}, g.timeout).Result()
		if err != nil {
			continue
		}
		r := res.(*providerStatsReply)
		out = append(out, UpstreamState{Name: name, State: r.State, InFlight: r.InFlight})
	}
	return out
}

// Stop stops the root supervisor and the provider actors under it.
func (g *Gateway) Stop() {
	if g.stopSweep != nil {
		close(g.stopSweep)
	}
	g.video.stop()
	g.slices.stop()
	_ = g.sys.Root.PoisonFuture(g.root).Wait()
}
