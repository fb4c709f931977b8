package admin

import (
	"encoding/json"
	"errors"
	"net/mail"
	"sort"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/http/internal/api"
)

func (s *server) adminRoutes(r fiber.Router) {
	r.Post("/accounts", s.adminCreateAccount)
	r.Get("/accounts/:id", s.adminAccount)
	s.adminWebRoutes(r) // admin_web.go
	r.Post("/accounts/:id/topups", s.adminTopUp)
	r.Post("/accounts/:id/plans", s.adminGrantPlan)
	r.Post("/accounts/:id/keys", s.adminCreateKey)
	r.Delete("/keys/:id", s.adminRevokeKey)
	r.Post("/keys/:id/revoke", s.adminRevokeKey)
	r.Get("/pricing", s.PublicPricing)
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
func (s *server) adminUpstreams(c *fiber.Ctx) error {
	ups := s.Gw.Upstreams()
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
		return api.DecodeError(err)
	}
	return nil
}

type createAccountReq struct {
	Email string `json:"email"`
}

func (s *server) adminCreateAccount(c *fiber.Ctx) error {
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
	a := shlyuz.Account{ID: api.NewID("acc-"), Email: strings.ToLower(req.Email), CreatedAt: time.Now().UTC()}
	if err := s.Gw.Store().CreateAccount(c.UserContext(), a); err != nil {
		if errors.Is(err, shlyuz.ErrDuplicate) {
			return shlyuz.ErrConflict("account_exists", "An account with the email %q exists already.", req.Email)
		}
		return shlyuz.ErrInternal(err)
	}
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"id": a.ID, "email": a.Email, "created_at": a.CreatedAt})
}

func (s *server) account(c *fiber.Ctx) (shlyuz.Account, *shlyuz.Error) {
	a, err := s.Gw.Store().Account(c.UserContext(), c.Params("id"))
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
	return fiber.Map{"account_id": accountID, "balance": api.BalanceView(*b, 0, time.Now()), "duplicate": dup}
}

func (s *server) adminAccount(c *fiber.Ctx) error {
	a, err := s.account(c)
	if err != nil {
		return err
	}
	b, err := s.Gw.Balance(a.ID)
	if err != nil {
		return err
	}
	keys, kerr := s.Gw.Store().KeysOf(c.UserContext(), a.ID)
	if kerr != nil {
		return shlyuz.ErrInternal(kerr)
	}
	if keys == nil {
		keys = []shlyuz.Key{}
	}
	return c.JSON(fiber.Map{"id": a.ID, "email": a.Email, "created_at": a.CreatedAt,
		"balance": api.BalanceView(b.Balance, b.Reserved, time.Now()), "keys": keys})
}

type topUpReq struct {
	Rubles         json.RawMessage `json:"rubles"`  // a number or a string holding one
	Credits        json.RawMessage `json:"credits"` // a whole number or a string holding one
	IdempotencyKey string          `json:"idempotency_key"`
}

func (s *server) adminTopUp(c *fiber.Ctx) error {
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
		v, err := api.WholeNumber(req.Credits)
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
	b, dup, err := s.Gw.TopUp(a.ID, credits, req.IdempotencyKey)
	if err != nil {
		return err
	}
	return c.JSON(balanceReply(a.ID, b, dup))
}

type grantPlanReq struct {
	PlanID         string `json:"plan_id"`
	IdempotencyKey string `json:"idempotency_key"`
}

func (s *server) adminGrantPlan(c *fiber.Ctx) error {
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
	plans, perr := s.Gw.Store().Plans(c.UserContext())
	if perr != nil {
		return shlyuz.ErrInternal(perr)
	}
	for _, p := range plans {
		if p.ID == req.PlanID {
			b, dup, err := s.Gw.GrantPlan(a.ID, p, req.IdempotencyKey)
			if err != nil {
				return err
			}
			return c.JSON(balanceReply(a.ID, b, dup))
		}
	}
	return shlyuz.ErrNotFound("Plan " + req.PlanID)
}

func (s *server) adminCreateKey(c *fiber.Ctx) error {
	var req api.CreateKeyReq
	if err := decodeStrict(c, &req); err != nil {
		return err
	}
	spec, serr := api.KeySpecOf(&req)
	if serr != nil {
		return serr
	}
	a, err := s.account(c)
	if err != nil {
		return err
	}
	plain, k, kerr := s.Gw.CreateKey(c.UserContext(), a.ID, spec)
	if kerr != nil {
		return kerr
	}
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"key": plain, "data": k})
}

func (s *server) adminRevokeKey(c *fiber.Ctx) error {
	if err := s.Gw.RevokeKey(c.UserContext(), c.Params("id")); err != nil {
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

func (s *server) adminSetPricing(c *fiber.Ctx) error {
	var req pricingReq
	if err := decodeStrict(c, &req); err != nil {
		return err
	}
	cur := s.Gw.Catalog().Pricing
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
	if err := s.Gw.Store().SaveSettings(c.UserContext(), st); err != nil {
		return shlyuz.ErrInternal(err)
	}
	if err := s.Gw.ReloadCatalog(c.UserContext()); err != nil {
		return shlyuz.ErrInternal(err)
	}
	return c.JSON(fiber.Map{"rate": cur.Rate, "K": cur.K, "credits_per_ruble": shlyuz.CreditsPerRuble, "currency": "RUB", "updated_at": st.UpdatedAt})
}

func (s *server) adminSavePlan(c *fiber.Ctx) error {
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
	if err := s.Gw.Store().SavePlan(c.UserContext(), p); err != nil {
		return shlyuz.ErrInternal(err)
	}
	return c.JSON(fiber.Map{"data": p})
}

func (s *server) adminDeletePlan(c *fiber.Ctx) error {
	err := s.Gw.Store().DeletePlan(c.UserContext(), c.Params("id"))
	if errors.Is(err, shlyuz.ErrNoRows) {
		return shlyuz.ErrNotFound("Plan " + c.Params("id"))
	}
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	return c.JSON(fiber.Map{"id": c.Params("id"), "deleted": true})
}

func (s *server) adminSaveModel(c *fiber.Ctx) error {
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
	if err := s.Gw.Store().SaveModelOverride(c.UserContext(), m); err != nil {
		return shlyuz.ErrInternal(err)
	}
	if err := s.Gw.ReloadCatalog(c.UserContext()); err != nil {
		return shlyuz.ErrInternal(err)
	}
	return c.JSON(fiber.Map{"data": m})
}

func (s *server) adminReconcile(c *fiber.Ctx) error {
	bad, err := s.Gw.Store().Reconcile(c.UserContext())
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	if bad == nil {
		bad = []string{}
	}
	refused := s.Gw.RefusedCharges() // served, then refused by the store: never ok
	if refused == nil {
		refused = []string{}
	}
	return c.JSON(fiber.Map{"mismatched_accounts": bad, "refused_charges": refused, "ok": len(bad) == 0 && len(refused) == 0})
}
