package http

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"net/mail"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
)

// adminAuth lets through only the operator's token.
func (s *Server) adminAuth(c *fiber.Ctx) error {
	h := c.Get(fiber.HeaderAuthorization)
	tok := strings.TrimSpace(strings.TrimPrefix(h, "Bearer "))
	if tok == "" || subtle.ConstantTimeCompare([]byte(tok), []byte(s.opts.AdminToken)) != 1 {
		return shlyuz.ErrUnauthorizedAdmin()
	}
	return c.Next()
}

func (s *Server) adminRoutes(r fiber.Router) {
	r.Post("/accounts", s.adminCreateAccount)
	r.Get("/accounts/:id", s.adminAccount)
	s.adminWebRoutes(r) // admin_web.go
	r.Post("/accounts/:id/topups", s.adminTopUp)
	r.Post("/accounts/:id/plans", s.adminGrantPlan)
	r.Post("/accounts/:id/keys", s.adminCreateKey)
	r.Delete("/keys/:id", s.adminRevokeKey)
	r.Post("/keys/:id/revoke", s.adminRevokeKey)
	r.Get("/pricing", s.publicPricing)
	r.Get("/pricing/history", s.adminRateChanges)
	r.Put("/pricing", s.adminSetPricing)
	r.Put("/plans/:id", s.adminSavePlan)
	r.Delete("/plans/:id", s.adminDeletePlan)
	r.Post("/models", s.adminSaveModel)
	r.Get("/reconcile", s.adminReconcile)
	r.Get("/upstreams", s.adminUpstreams)
	r.Get("/cluster", s.adminCluster)
}

// adminUpstreams is each upstream's breaker state and slots in use, as its provider actor reports them.
func (s *Server) adminUpstreams(c *fiber.Ctx) error {
	ups := s.gw.Upstreams()
	out := make([]fiber.Map, 0, len(ups))
	for _, u := range ups {
		out = append(out, fiber.Map{"name": u.Name, "breaker": u.State.String(), "in_flight": u.InFlight})
	}
	sort.Slice(out, func(i, j int) bool { return out[i]["name"].(string) < out[j]["name"].(string) })
	return c.JSON(fiber.Map{"data": out})
}

// decodeStrict reads a JSON object body into v, refusing unknown fields.
func decodeStrict(c *fiber.Ctx, v any) *shlyuz.Error {
	dec := json.NewDecoder(strings.NewReader(string(c.Body())))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return decodeError(err)
	}
	return nil
}

// decodeError names the field of an operator request that is wrong: a value of
// the wrong type or an unknown field is invalid_value with its param; only a
// body that is not JSON at all is invalid_json.
func decodeError(err error) *shlyuz.Error {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) && typ.Field != "" {
		return shlyuz.ErrInvalidValue(typ.Field, "%s must be %s, not a JSON %s.", typ.Field, jsonKind(typ.Type), typ.Value)
	}
	if f, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		f = strings.Trim(f, `"`)
		return shlyuz.ErrInvalidValue(f, "%q is not a field of this request.", f)
	}
	return shlyuz.ErrInvalidJSON(err.Error())
}

// wholeNumber reads a JSON integer, or a string holding one.
func wholeNumber(raw json.RawMessage) (int64, error) {
	return strconv.ParseInt(strings.Trim(string(raw), `"`), 10, 64)
}

// jsonKind says what JSON value a Go type takes, for decodeError's message.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "an object"
}

type createAccountReq struct {
	Email string `json:"email"`
}

func (s *Server) adminCreateAccount(c *fiber.Ctx) error {
	var req createAccountReq
	if err := decodeStrict(c, &req); err != nil {
		return err
	}
	if req.Email == "" {
		return shlyuz.ErrMissingField("email")
	}
	if _, err := mail.ParseAddress(req.Email); err != nil {
		return shlyuz.ErrInvalidValue("email", "The email %q is not a valid address.", req.Email)
	}
	a := shlyuz.Account{ID: newID("acc-"), Email: strings.ToLower(req.Email), CreatedAt: time.Now().UTC()}
	if err := s.gw.Store().CreateAccount(c.UserContext(), a); err != nil {
		if errors.Is(err, shlyuz.ErrDuplicate) {
			return shlyuz.ErrConflict("account_exists", "An account with the email %q exists already.", req.Email)
		}
		return shlyuz.ErrInternal(err)
	}
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"id": a.ID, "email": a.Email, "created_at": a.CreatedAt})
}

func (s *Server) account(c *fiber.Ctx) (shlyuz.Account, *shlyuz.Error) {
	a, err := s.gw.Store().Account(c.UserContext(), c.Params("id"))
	if errors.Is(err, shlyuz.ErrNoRows) {
		return a, shlyuz.ErrNotFound("Account " + c.Params("id"))
	}
	if err != nil {
		return a, shlyuz.ErrInternal(err)
	}
	return a, nil
}

// balanceReply answers a top-up or a plan grant: the balance under the same
// name as in the account's detail, and whether the idempotency key was a replay.
func balanceReply(accountID string, b *shlyuz.Balance, dup bool) fiber.Map {
	return fiber.Map{"account_id": accountID, "balance": balanceView(*b, 0, time.Now()), "duplicate": dup}
}

func (s *Server) adminAccount(c *fiber.Ctx) error {
	a, err := s.account(c)
	if err != nil {
		return err
	}
	b, err := s.gw.Balance(a.ID)
	if err != nil {
		return err
	}
	keys, kerr := s.gw.Store().KeysOf(c.UserContext(), a.ID)
	if kerr != nil {
		return shlyuz.ErrInternal(kerr)
	}
	if keys == nil {
		keys = []shlyuz.Key{}
	}
	return c.JSON(fiber.Map{"id": a.ID, "email": a.Email, "created_at": a.CreatedAt,
		"balance": balanceView(b.Balance, b.Reserved, time.Now()), "keys": keys})
}

type topUpReq struct {
	Rubles         json.RawMessage `json:"rubles"`  // a number or a string holding one
	Credits        json.RawMessage `json:"credits"` // a whole number or a string holding one
	IdempotencyKey string          `json:"idempotency_key"`
}

func (s *Server) adminTopUp(c *fiber.Ctx) error {
	var req topUpReq
	if err := decodeStrict(c, &req); err != nil {
		return err
	}
	if req.IdempotencyKey == "" {
		return shlyuz.ErrMissingField("idempotency_key")
	}
	var credits shlyuz.Credits
	switch {
	case req.Rubles != nil && req.Credits != nil:
		return shlyuz.ErrInvalidValue("rubles", "Send rubles or credits, not both.")
	case req.Rubles != nil:
		v, err := shlyuz.RublesToCredits(strings.Trim(string(req.Rubles), `"`))
		if err != nil {
			return shlyuz.ErrInvalidValue("rubles", "%s", err.Error())
		}
		credits = v
	case req.Credits != nil:
		v, err := wholeNumber(req.Credits)
		if err != nil {
			return shlyuz.ErrInvalidValue("credits", "credits must be a whole number.")
		}
		credits = v
	default:
		return shlyuz.ErrMissingField("rubles")
	}
	if credits <= 0 {
		return shlyuz.ErrInvalidValue("credits", "A top-up must be positive.")
	}
	if err := shlyuz.CheckCredits("credits", credits); err != nil {
		return err
	}
	a, err := s.account(c)
	if err != nil {
		return err
	}
	b, dup, err := s.gw.TopUp(a.ID, credits, req.IdempotencyKey)
	if err != nil {
		return err
	}
	return c.JSON(balanceReply(a.ID, b, dup))
}

type grantPlanReq struct {
	PlanID         string `json:"plan_id"`
	IdempotencyKey string `json:"idempotency_key"`
}

func (s *Server) adminGrantPlan(c *fiber.Ctx) error {
	var req grantPlanReq
	if err := decodeStrict(c, &req); err != nil {
		return err
	}
	if req.PlanID == "" {
		return shlyuz.ErrMissingField("plan_id")
	}
	if req.IdempotencyKey == "" {
		return shlyuz.ErrMissingField("idempotency_key")
	}
	a, err := s.account(c)
	if err != nil {
		return err
	}
	plans, perr := s.gw.Store().Plans(c.UserContext())
	if perr != nil {
		return shlyuz.ErrInternal(perr)
	}
	for _, p := range plans {
		if p.ID == req.PlanID {
			b, dup, err := s.gw.GrantPlan(a.ID, p, req.IdempotencyKey)
			if err != nil {
				return err
			}
			return c.JSON(balanceReply(a.ID, b, dup))
		}
	}
	return shlyuz.ErrNotFound("Plan " + req.PlanID)
}

type createKeyReq struct {
	Name       string            `json:"name"`
	Limit      json.RawMessage   `json:"limit"`
	LimitReset string            `json:"limit_reset"`
	ExpiresAt  *string           `json:"expires_at"` // RFC 3339 or a date
	RateLimit  *shlyuz.RateLimit `json:"rate_limit"`
	Management bool              `json:"management"` // a management key (/api/v1/keys), never a model's caller
	// AllowedModels: model ids and "provider/" prefixes the key may call; absent: any.
	AllowedModels []string `json:"allowed_models"`
}

func (s *Server) adminCreateKey(c *fiber.Ctx) error {
	var req createKeyReq
	if err := decodeStrict(c, &req); err != nil {
		return err
	}
	spec, serr := keySpecOf(&req)
	if serr != nil {
		return serr
	}
	a, err := s.account(c)
	if err != nil {
		return err
	}
	plain, k, kerr := s.gw.CreateKey(c.UserContext(), a.ID, spec)
	if kerr != nil {
		return kerr
	}
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"key": plain, "data": k})
}

// keySpecOf checks a request for a new key (the operator API's and the
// management API's /api/v1/keys) and makes its spec.
func keySpecOf(req *createKeyReq) (actors.KeySpec, *shlyuz.Error) {
	if !shlyuz.KeyNameFits(req.Name) {
		return actors.KeySpec{}, shlyuz.ErrInvalidValue("name", "A key's name has at most %d characters and no control characters.", shlyuz.MaxKeyName)
	}
	reset, rerr := shlyuz.ParseLimitReset(req.LimitReset)
	if rerr != nil {
		return actors.KeySpec{}, shlyuz.ErrInvalidValue("limit_reset", "%s", rerr.Error())
	}
	var limit *shlyuz.Credits
	if req.Limit != nil && string(req.Limit) != "null" {
		v, err := wholeNumber(req.Limit)
		if err != nil || v < 0 {
			return actors.KeySpec{}, shlyuz.ErrInvalidValue("limit", "limit is a whole number of credits, 0 or more.")
		}
		if err := shlyuz.CheckCredits("limit", v); err != nil {
			return actors.KeySpec{}, err
		}
		limit = &v
	}
	if reset != shlyuz.ResetNever && limit == nil {
		return actors.KeySpec{}, shlyuz.ErrInvalidValue("limit_reset", "limit_reset needs a limit: it says when the limit's spend starts again.")
	}
	var expires *time.Time
	if req.ExpiresAt != nil {
		at, err := shlyuz.ParseInstant(*req.ExpiresAt)
		if err != nil {
			return actors.KeySpec{}, shlyuz.ErrInvalidValue("expires_at", "expires_at: %s.", err.Error())
		}
		if !at.After(time.Now()) {
			return actors.KeySpec{}, shlyuz.ErrInvalidValue("expires_at", "expires_at must be in the future.")
		}
		expires = &at
	}
	if rl := req.RateLimit; rl != nil && (rl.RequestsPerMinute < 0 || rl.TokensPerMinute < 0 || *rl == (shlyuz.RateLimit{})) {
		return actors.KeySpec{}, shlyuz.ErrInvalidValue("rate_limit", "rate_limit takes requests_per_minute and/or tokens_per_minute, whole numbers above 0.")
	}
	if err := shlyuz.ValidateAllowedModels(req.AllowedModels); err != nil {
		return actors.KeySpec{}, err
	}
	return actors.KeySpec{Name: req.Name, Limit: limit, LimitReset: reset, ExpiresAt: expires, RateLimit: req.RateLimit,
		Management: req.Management, AllowedModels: req.AllowedModels}, nil
}

func (s *Server) adminRevokeKey(c *fiber.Ctx) error {
	if err := s.gw.RevokeKey(c.UserContext(), c.Params("id")); err != nil {
		return err
	}
	return c.JSON(fiber.Map{"id": c.Params("id"), "revoked": true})
}

type pricingReq struct {
	Rate *shlyuz.Decimal `json:"rate"`
	K    *shlyuz.Decimal `json:"K"`
	// Pinned false lets the exchange-rate feed move the rate again; a rate
	// set here pins it (admin_web.go).
	Pinned *bool `json:"pinned"`
}

func (s *Server) adminSetPricing(c *fiber.Ctx) error {
	var req pricingReq
	if err := decodeStrict(c, &req); err != nil {
		return err
	}
	cur := s.gw.Catalog().Pricing
	oldRate := cur.Rate
	if req.Rate != nil {
		cur.Rate = *req.Rate
	}
	if req.K != nil {
		cur.K = *req.K
	}
	if err := shlyuz.CheckPricing(shlyuz.Pricing{Rate: cur.Rate, K: cur.K}); err != nil {
		return err
	}
	if cur.Rate.Sign() <= 0 {
		return shlyuz.ErrInvalidValue("rate", "rate must be positive.")
	}
	if cur.K.Sign() <= 0 {
		return shlyuz.ErrInvalidValue("K", "K must be positive.")
	}
	st := shlyuz.Settings{Pricing: cur, UpdatedAt: time.Now().UTC()}
	if err := s.recordRate(c, oldRate, req.Rate, req.Pinned, st.UpdatedAt); err != nil { // the pin first: the feed then keeps off
		return err
	}
	if err := s.gw.Store().SaveSettings(c.UserContext(), st); err != nil {
		return shlyuz.ErrInternal(err)
	}
	if err := s.gw.ReloadCatalog(c.UserContext()); err != nil {
		return shlyuz.ErrInternal(err)
	}
	return c.JSON(fiber.Map{"rate": cur.Rate, "K": cur.K, "credits_per_ruble": shlyuz.CreditsPerRuble, "currency": "RUB", "updated_at": st.UpdatedAt})
}

func (s *Server) adminSavePlan(c *fiber.Ctx) error {
	var p shlyuz.Plan
	if err := decodeStrict(c, &p); err != nil {
		return err
	}
	p.ID = c.Params("id")
	if p.Name == "" {
		return shlyuz.ErrMissingField("name")
	}
	if p.PackageCredits <= 0 {
		return shlyuz.ErrInvalidValue("package_credits", "package_credits must be positive.")
	}
	if err := shlyuz.CheckCredits("package_credits", p.PackageCredits); err != nil {
		return err
	}
	if p.PriceRubles.Sign() < 0 {
		return shlyuz.ErrInvalidValue("price_rubles", "price_rubles must not be negative.")
	}
	period, err := shlyuz.ParseLimitReset(string(p.Period))
	if err != nil || period == shlyuz.ResetNever {
		return shlyuz.ErrInvalidValue("period", "period must be day, week or month.")
	}
	p.Period = period
	if err := s.gw.Store().SavePlan(c.UserContext(), p); err != nil {
		return shlyuz.ErrInternal(err)
	}
	return c.JSON(fiber.Map{"data": p})
}

func (s *Server) adminDeletePlan(c *fiber.Ctx) error {
	err := s.gw.Store().DeletePlan(c.UserContext(), c.Params("id"))
	if errors.Is(err, shlyuz.ErrNoRows) {
		return shlyuz.ErrNotFound("Plan " + c.Params("id"))
	}
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	return c.JSON(fiber.Map{"id": c.Params("id"), "deleted": true})
}

func (s *Server) adminSaveModel(c *fiber.Ctx) error {
	var m shlyuz.Model
	if err := decodeStrict(c, &m); err != nil {
		return err
	}
	if i := strings.IndexByte(m.ID, '/'); i <= 0 || i == len(m.ID)-1 {
		return shlyuz.ErrInvalidValue("id", "A model id looks like <provider>/<model_name>.")
	}
	if err := m.CheckPrice(); err != nil {
		return err
	}
	if len(m.InputModalities) == 0 {
		m.InputModalities = []string{"text"}
	}
	if len(m.OutputModalities) == 0 {
		m.OutputModalities = []string{"text"}
	}
	if err := s.gw.Store().SaveModelOverride(c.UserContext(), m); err != nil {
		return shlyuz.ErrInternal(err)
	}
	if err := s.gw.ReloadCatalog(c.UserContext()); err != nil {
		return shlyuz.ErrInternal(err)
	}
	return c.JSON(fiber.Map{"data": m})
}

func (s *Server) adminReconcile(c *fiber.Ctx) error {
	bad, err := s.gw.Store().Reconcile(c.UserContext())
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	if bad == nil {
		bad = []string{}
	}
	refused := s.gw.RefusedCharges() // served, then refused by the store: never ok
	if refused == nil {
		refused = []string{}
	}
	return c.JSON(fiber.Map{"mismatched_accounts": bad, "refused_charges": refused, "ok": len(bad) == 0 && len(refused) == 0})
}
