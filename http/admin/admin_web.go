package admin

import (
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

// adminWebRoutes let the operator see what the web area's users do: the
// accounts, and an account's activity (its keys are in GET /accounts/:id).
func (s *server) adminWebRoutes(r fiber.Router) {
	r.Get("/accounts", s.adminAccounts)
	r.Get("/accounts/:id/activity", s.adminActivity)
}

// page reads ?limit (1–500, default 50) and ?offset.
func page(c *fiber.Ctx) (int, int, *shlyuz.Error) {
	limit, offset := c.QueryInt("limit", 50), c.QueryInt("offset", 0)
	if limit < 1 || limit > 500 {
		return 0, 0, shlyuz.ErrInvalidValue("limit", "limit is 1 to 500.")
	}
	if offset < 0 {
		return 0, 0, shlyuz.ErrInvalidValue("offset", "offset is 0 or more.")
	}
	return limit, offset, nil
}

func (s *server) adminAccounts(c *fiber.Ctx) error {
	limit, offset, perr := page(c)
	if perr != nil {
		return perr
	}
	accts, err := s.Gw.Store().Accounts(c.UserContext(), limit, offset)
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	if accts == nil {
		accts = []shlyuz.Account{}
	}
	return c.JSON(fiber.Map{"data": accts})
}

func (s *server) adminActivity(c *fiber.Ctx) error {
	limit, offset, perr := page(c)
	if perr != nil {
		return perr
	}
	a, aerr := s.account(c)
	if aerr != nil {
		return aerr
	}
	gens, err := s.Gw.Store().Generations(c.UserContext(), shlyuz.GenerationFilter{AccountID: a.ID, KeyID: c.Query("key"),
		Model: c.Query("model"), Limit: limit, Offset: offset})
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	type row struct {
		shlyuz.Generation
		KeyID string `json:"key_id"`
	}
	out := make([]row, 0, len(gens))
	for _, g := range gens {
		out = append(out, row{Generation: g, KeyID: g.KeyID})
	}
	return c.JSON(fiber.Map{"data": out})
}

// recordRate records the operator's change of the exchange rate (which pins
// it against the feed) and an unpinning, in that order.
func (s *server) recordRate(c *fiber.Ctx, old shlyuz.Decimal, rate *shlyuz.Decimal, pinned *bool, at time.Time) *shlyuz.Error {
	var changes []shlyuz.RateChange
	if rate != nil {
		changes = append(changes, shlyuz.RateChange{By: shlyuz.RateByOperator, Old: old, New: *rate})
		old = *rate
	}
	if pinned != nil && !*pinned {
		changes = append(changes, shlyuz.RateChange{By: shlyuz.RateByUnpin, Old: old, New: old})
	}
	for i, ch := range changes {
		var b [12]byte
		_, _ = rand.Read(b[:])
		ch.ID, ch.At = "rate-"+hex.EncodeToString(b[:]), at.Add(time.Duration(i)*time.Microsecond)
		if err := s.Gw.Store().RecordRateChange(c.UserContext(), ch); err != nil {
			return shlyuz.ErrInternal(err)
		}
	}
	return nil
}

// adminRateChanges is the exchange rate's history, newest first: who, when, old and new.
func (s *server) adminRateChanges(c *fiber.Ctx) error {
	limit, _, perr := page(c)
	if perr != nil {
		return perr
	}
	cs, err := s.Gw.Store().RateChanges(c.UserContext(), limit)
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	if cs == nil {
		cs = []shlyuz.RateChange{}
	}
	return c.JSON(fiber.Map{"data": cs})
}
