package openrouter

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/http/internal/api"
)

// Key management as OpenRouter's provisioning API has it (/api/v1/keys),
// authorised by a management key of the account, and /api/v1/activity.
// A key is named by its hash (SHA-256 of the secret, as OpenRouter's are);
// deleting a key revokes it (its charges stay in the ledger under its id),
// and a deleted or revoked key is a disabled one. Management keys are
// neither listed nor changed here.

func (s *server) keyRoutes(v1 fiber.Router) {
	v1.Get("/activity", s.Authenticated, s.activity)
	v1.Get("/auth/key", s.Authenticated, s.keyInfo) // the legacy path of /key many clients still call
	keys := v1.Group("/keys", s.Authenticated, managementOnly)
	keys.Get("", s.listKeys)
	keys.Post("", s.createKey)
	keys.Get("/:hash", s.getKey)
	keys.Patch("/:hash", s.updateKey)
	keys.Delete("/:hash", s.deleteKey)
}

func managementOnly(c *fiber.Ctx) error {
	if !api.KeyStatus(c).Key.Management {
		return shlyuz.ErrNotManagementKey()
	}
	return c.Next()
}

// orKey is a key in OpenRouter's key shape.
func (s *server) orKey(c *fiber.Ctx, k *shlyuz.Key) (fiber.Map, *shlyuz.Error) {
	out, err := s.keyUsage(c, k)
	if err != nil {
		return nil, err
	}
	var remaining *shlyuz.Credits
	if k.Limit != nil && !k.Revoked() {
		if st, err := s.Gw.CheckKey(k.Hash); err == nil {
			r := max(0, *k.Limit-st.Spent-st.Reserved)
			remaining = &r
		}
	}
	for name, v := range (fiber.Map{
		"hash": k.Hash, "id": k.ID, "name": k.Name, "label": k.Label, "disabled": k.Revoked() || k.Expired(time.Now()),
		"limit": k.Limit, "limit_remaining": remaining, "limit_reset": orLimitReset(k.LimitReset),
		"created_at": k.CreatedAt.UTC().Format(time.RFC3339Nano), "updated_at": nil, "expires_at": k.ExpiresAt,
		"creator_user_id": nil, "external_user": nil, "workspace_id": "", "allowed_models": k.AllowedModels, // null: any model
	}) {
		out[name] = v
	}
	return out, nil
}

// accountKey is the account's API key of the :hash parameter, or a 404.
func (s *server) accountKey(c *fiber.Ctx) (*shlyuz.Key, error) {
	k, err := s.Gw.Store().KeyByHash(c.UserContext(), c.Params("hash"))
	if err != nil || k.AccountID != api.KeyStatus(c).Key.AccountID || k.Management {
		return nil, shlyuz.ErrNotFound("Key " + c.Params("hash"))
	}
	return &k, nil
}

// listKeys is GET /api/v1/keys: the account's API keys, oldest first, 100 a
// page from offset; disabled ones only with include_disabled=true.
func (s *server) listKeys(c *fiber.Ctx) error {
	offset, err := queryInt(c, "offset", 0, 0, 1<<62)
	if err != nil {
		return err
	}
	keys, kerr := s.Gw.Store().KeysOf(c.UserContext(), api.KeyStatus(c).Key.AccountID)
	if kerr != nil {
		return shlyuz.ErrInternal(kerr)
	}
	all := c.Query("include_disabled") == "true"
	out := []fiber.Map{}
	var seen int64
	for i := range keys {
		k := &keys[i]
		if k.Management || (!all && (k.Revoked() || k.Expired(time.Now()))) {
			continue
		}
		if seen++; seen <= offset || len(out) == 100 {
			continue
		}
		m, err := s.orKey(c, k)
		if err != nil {
			return err
		}
		out = append(out, m)
	}
	return c.JSON(fiber.Map{"data": out})
}

// createKey is POST /api/v1/keys: {name, limit (credits), limit_reset,
// expires_at}; the plain key is in this answer only.
func (s *server) createKey(c *fiber.Ctx) error {
	var req api.CreateKeyReq
	d := json.NewDecoder(bytes.NewReader(c.Body()))
	d.UseNumber()
	if err := d.Decode(&req); err != nil {
		return api.DecodeError(err)
	}
	req.Management = false // a management key makes API keys only
	spec, serr := api.KeySpecOf(&req)
	if serr != nil {
		return serr
	}
	plain, k, kerr := s.Gw.CreateKey(c.UserContext(), api.KeyStatus(c).Key.AccountID, spec)
	if kerr != nil {
		return kerr
	}
	m, err := s.orKey(c, &k)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(fiber.Map{"data": m, "key": plain})
}

// getKey is GET /api/v1/keys/{hash}.
func (s *server) getKey(c *fiber.Ctx) error {
	k, err := s.accountKey(c)
	if err != nil {
		return err
	}
	m, kerr := s.orKey(c, k)
	if kerr != nil {
		return kerr
	}
	return c.JSON(fiber.Map{"data": m})
}

type updateKeyReq struct {
	Name       *string         `json:"name"`
	Disabled   *bool           `json:"disabled"`
	Limit      json.RawMessage `json:"limit"` // absent: unchanged; null: none
	LimitReset *string         `json:"limit_reset"`
}

// updateKey is PATCH /api/v1/keys/{hash}: a new limit (or null for none),
// or disabled: true. A key's name and period stay as created, and a
// disabled key is never enabled again.
func (s *server) updateKey(c *fiber.Ctx) error {
	k, err := s.accountKey(c)
	if err != nil {
		return err
	}
	var req updateKeyReq
	d := json.NewDecoder(bytes.NewReader(c.Body()))
	d.UseNumber()
	if err := d.Decode(&req); err != nil {
		return api.DecodeError(err)
	}
	if req.Name != nil && *req.Name != k.Name {
		return shlyuz.ErrInvalidValue("name", "A key's name stays as it was created.")
	}
	if req.LimitReset != nil {
		if r, perr := shlyuz.ParseLimitReset(*req.LimitReset); perr != nil || r != k.LimitReset {
			return shlyuz.ErrInvalidValue("limit_reset", "A key's limit_reset stays as it was created.")
		}
	}
	if req.Disabled != nil && !*req.Disabled && k.Revoked() {
		return shlyuz.ErrInvalidValue("disabled", "A disabled key is never enabled again: create a new one.")
	}
	if req.Limit != nil {
		var limit *shlyuz.Credits
		if string(req.Limit) != "null" {
			v, werr := api.WholeNumber(req.Limit)
			if werr != nil || v < 0 {
				return shlyuz.ErrInvalidValue("limit", "limit is a whole number of credits, 0 or more, or null.")
			}
			if cerr := shlyuz.CheckCredits("limit", v); cerr != nil {
				return cerr
			}
			limit = &v
		}
		if k.LimitReset != shlyuz.ResetNever && limit == nil {
			return shlyuz.ErrInvalidValue("limit", "This key's limit resets %s: it needs a limit.", k.LimitReset)
		}
		if kerr := s.Gw.SetKeyLimit(c.UserContext(), k.ID, limit); kerr != nil {
			return kerr
		}
	}
	if req.Disabled != nil && *req.Disabled && !k.Revoked() {
		if kerr := s.Gw.RevokeKey(c.UserContext(), k.ID); kerr != nil {
			return kerr
		}
	}
	return s.getKey(c)
}

// deleteKey is DELETE /api/v1/keys/{hash}: the key is revoked.
func (s *server) deleteKey(c *fiber.Ctx) error {
	k, err := s.accountKey(c)
	if err != nil {
		return err
	}
	if !k.Revoked() {
		if kerr := s.Gw.RevokeKey(c.UserContext(), k.ID); kerr != nil {
			return kerr
		}
	}
	return c.JSON(fiber.Map{"deleted": true})
}

// activity is GET /api/v1/activity: the account's spend per UTC day, model
// and upstream over the last 30 days (today included), or of one day
// (?date=YYYY-MM-DD); usage in credits.
func (s *server) activity(c *fiber.Ctx) error {
	acct := api.KeyStatus(c).Key.AccountID
	now := time.Now().UTC()
	since := time.Date(now.Year(), now.Month(), now.Day()-29, 0, 0, 0, 0, time.UTC)
	var day string
	if d := c.Query("date"); d != "" {
		t, perr := time.Parse(time.DateOnly, d)
		if perr != nil {
			return shlyuz.ErrInvalidValue("date", "date is a day as YYYY-MM-DD.")
		}
		day, since = d, t
	}
	if _, err := s.Gw.Balance(acct); err != nil { // after the account has handled every settlement sent before
		return err
	}
	rows, err := s.Gw.Activity(c.UserContext(), acct, since)
	if err != nil {
		return err
	}
	out := []fiber.Map{}
	for _, r := range rows {
		date := r.Day.Format(time.DateOnly)
		if day != "" && date != day {
			continue
		}
		out = append(out, fiber.Map{"date": date, "model": r.Model, "model_permaslug": r.Model,
			"endpoint_id": r.Upstream + "/" + r.Model, "provider_name": r.Upstream, "usage": r.Credits, "byok_usage_inference": 0,
			"requests": r.Requests, "prompt_tokens": r.PromptTokens, "completion_tokens": r.CompletionTokens, "reasoning_tokens": 0})
	}
	return c.JSON(fiber.Map{"data": out})
}
