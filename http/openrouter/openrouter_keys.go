package openrouter

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/http/internal/api"
)

// Key management as OpenRouter's provisioning API has it (/api/v1/keys),
// authorised by a management key of the account, and /api/v1/activity.
// A key is named by its hash (SHA-256 of the secret, as OpenRouter's are).
// Deleting a key revokes it for good (its charges stay in the ledger under
// its id) and it is not found here any more; disabling one (PATCH
// disabled: true) stops it until it is enabled again. Management keys and
// the web chat's key are neither listed nor changed here. A key a
// management key makes or changes stays within the management key's own
// ceiling, models and expiry (shlyuz.BoundGrant).

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
	var updated *string
	if k.UpdatedAt != nil {
		u := k.UpdatedAt.UTC().Format(time.RFC3339Nano)
		updated = &u
	}
	for name, v := range (fiber.Map{
		"hash": k.Hash, "id": k.ID, "name": k.Name, "label": k.Label, "disabled": k.Usable(time.Now()) != nil,
		"limit": k.Limit, "limit_remaining": remaining, "limit_reset": orLimitReset(k.LimitReset),
		"created_at": k.CreatedAt.UTC().Format(time.RFC3339Nano), "updated_at": updated, "expires_at": k.ExpiresAt,
		"creator_user_id": nil, "external_user": nil, "workspace_id": "", "allowed_models": k.AllowedModels, // null: any model
	}) {
		out[name] = v
	}
	return out, nil
}

// accountKey is the account's API key of the :hash parameter, or a 404 (a
// deleted key, a management key and the web chat's key are not found).
func (s *server) accountKey(c *fiber.Ctx) (*shlyuz.Key, error) {
	k, err := s.Gw.Store().KeyByHash(c.UserContext(), c.Params("hash"))
	if err != nil || k.AccountID != api.KeyStatus(c).Key.AccountID || k.Management || k.WebChat || k.Revoked() {
		return nil, shlyuz.ErrNotFound("Key " + c.Params("hash"))
	}
	return &k, nil
}

// keysPage is how many keys a page of GET /api/v1/keys holds, as OpenRouter's.
const keysPage = 100

// listKeys is GET /api/v1/keys: the account's API keys, oldest first, 100 a
// page from offset, read a page at a time from the store; disabled and
// expired ones only with include_disabled=true.
func (s *server) listKeys(c *fiber.Ctx) error {
	offset, err := queryInt(c, "offset", 0, 0, 1<<31)
	if err != nil {
		return err
	}
	p := shlyuz.KeyPage{Offset: int(offset), Limit: keysPage}
	if c.Query("include_disabled") != "true" {
		p.LiveAt = time.Now()
	}
	keys, kerr := s.Gw.Store().APIKeys(c.UserContext(), api.KeyStatus(c).Key.AccountID, p)
	if kerr != nil {
		return shlyuz.ErrInternal(kerr)
	}
	out := make([]fiber.Map, 0, len(keys))
	for i := range keys {
		m, err := s.orKey(c, &keys[i])
		if err != nil {
			return err
		}
		out = append(out, m)
	}
	return c.JSON(fiber.Map{"data": out})
}

// createKey is POST /api/v1/keys: {name, limit (credits), limit_reset,
// expires_at, allowed_models}, within the management key's own bounds; the
// plain key is in this answer only.
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
	plain, k, kerr := s.Gw.CreateKeyBy(c.UserContext(), api.KeyStatus(c), spec)
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

// updateKeyReq is OpenRouter's PATCH body; a field left out stays as it is.
type updateKeyReq struct {
	Name               *string         `json:"name"`
	Disabled           *bool           `json:"disabled"`
	Limit              json.RawMessage `json:"limit"` // null: none
	LimitReset         json.RawMessage `json:"limit_reset"`
	IncludeBYOKInLimit *bool           `json:"include_byok_in_limit"` // no BYOK spend here: accepted, nothing to count
}

// updateKey is PATCH /api/v1/keys/{hash}: a new name, disabled (true stops
// the key, false enables it again), limit (credits, or null for none) and
// limit_reset (daily, weekly, monthly, or null for never), within the
// management key's own bounds as for a new key. A period that changes
// recounts the key's spend from the new period's start.
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
	ch := actors.KeyChange{Name: req.Name, Disabled: req.Disabled}
	if req.Name != nil && (*req.Name == "" || !shlyuz.KeyNameFits(*req.Name)) {
		return shlyuz.ErrInvalidValue("name", "A key's name is 1 to %d characters without control characters.", shlyuz.MaxKeyName)
	}
	if req.Limit != nil {
		ch.SetLimit = true
		if string(req.Limit) != "null" {
			v, werr := api.WholeNumber(req.Limit)
			if werr != nil || v < 0 {
				return shlyuz.ErrInvalidValue("limit", "limit is a whole number of credits, 0 or more, or null.")
			}
			if cerr := shlyuz.CheckCredits("limit", v); cerr != nil {
				return cerr
			}
			ch.Limit = &v
		}
	}
	if req.LimitReset != nil {
		var name string
		if string(req.LimitReset) != "null" {
			if json.Unmarshal(req.LimitReset, &name) != nil {
				return shlyuz.ErrInvalidValue("limit_reset", "limit_reset is daily, weekly, monthly or null.")
			}
		}
		r, perr := shlyuz.ParseLimitReset(name)
		if perr != nil {
			return shlyuz.ErrInvalidValue("limit_reset", "limit_reset is daily, weekly, monthly or null.")
		}
		ch.LimitReset = &r
	}
	if _, kerr := s.Gw.UpdateKey(c.UserContext(), api.KeyStatus(c), k.ID, ch); kerr != nil {
		return kerr
	}
	return s.getKey(c)
}

// deleteKey is DELETE /api/v1/keys/{hash}: the key is revoked for good.
func (s *server) deleteKey(c *fiber.Ctx) error {
	k, err := s.accountKey(c)
	if err != nil {
		return err
	}
	if kerr := s.Gw.RevokeKey(c.UserContext(), k.ID); kerr != nil {
		return kerr
	}
	return c.JSON(fiber.Map{"deleted": true})
}

// activity is GET /api/v1/activity: the account's spend per UTC day, model,
// upstream and end user (external_user, the requests' "user") over the last
// 30 days (today included), or of one day (?date=YYYY-MM-DD), or of one end
// user (?user=); usage in credits.
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
	user := c.Query("user")
	out := []fiber.Map{}
	for _, r := range rows {
		date := r.Day.Format(time.DateOnly)
		if day != "" && date != day || user != "" && r.User != user {
			continue
		}
		var externalUser any // null: requests that named no end user
		if r.User != "" {
			externalUser = r.User
		}
		out = append(out, fiber.Map{"date": date, "model": r.Model, "model_permaslug": r.Model,
			"endpoint_id": r.Upstream + "/" + r.Model, "provider_name": r.Upstream, "usage": r.Credits, "byok_usage_inference": 0,
			"requests": r.Requests, "prompt_tokens": r.PromptTokens, "completion_tokens": r.CompletionTokens, "reasoning_tokens": 0,
			"external_user": externalUser})
	}
	return c.JSON(fiber.Map{"data": out})
}
