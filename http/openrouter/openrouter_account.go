package openrouter

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/http/internal/api"
)

// The account endpoints in OpenRouter's shapes (/credits, /key, /generation),
// beside our own fields. Every OpenRouter-named money figure is in credits
// (1 ruble = 100,000 credits): the unit of pricing.prompt per token. Figures
// the gateway does not know are null; BYOK figures are 0, as nothing here is
// billed to the client's own upstream key.

// credits is GET /api/v1/credits: OpenRouter's total_credits and total_usage
// (total_credits − total_usage is balance_credits, what may be spent now),
// and our split of the balance.
func (s *server) credits(c *fiber.Ctx) error {
	acct := api.KeyStatus(c).Key.AccountID
	b, err := s.Gw.Balance(acct) // after the account has handled every settlement sent before
	if err != nil {
		return err
	}
	used, err := s.Gw.AccountSpend(c.UserContext(), acct, time.Time{})
	if err != nil {
		return err
	}
	v := api.BalanceView(b.Balance, b.Reserved, time.Now())
	balance := v["balance_credits"].(shlyuz.Credits)
	v["total_usage"] = used
	v["total_credits"] = balance + used // what was received and has not expired
	return c.JSON(fiber.Map{"data": v})
}

// orLimitReset is a key's period in OpenRouter's words, or null.
func orLimitReset(r shlyuz.LimitReset) *string {
	var s string
	switch r {
	case shlyuz.ResetDay:
		s = "daily"
	case shlyuz.ResetWeek:
		s = "weekly"
	case shlyuz.ResetMonth:
		s = "monthly"
	default:
		return nil
	}
	return &s
}

// utcPeriods are the starts of the UTC day, week (Monday first) and month
// that hold now: OpenRouter's usage_daily, _weekly and _monthly.
func utcPeriods(now time.Time) (day, week, month time.Time) {
	return shlyuz.PeriodStart(now, shlyuz.ResetDay, time.UTC), shlyuz.PeriodStart(now, shlyuz.ResetWeek, time.UTC),
		shlyuz.PeriodStart(now, shlyuz.ResetMonth, time.UTC)
}

// keyUsage is a key's spend all-time and in the UTC day, week and month.
func (s *server) keyUsage(c *fiber.Ctx, k *shlyuz.Key) (fiber.Map, *shlyuz.Error) {
	day, week, month := utcPeriods(time.Now())
	u, err := s.Gw.KeySpends(c.UserContext(), k.ID, time.Time{}, day, week, month)
	if err != nil {
		return nil, err
	}
	return fiber.Map{"usage": u[0], "usage_daily": u[1], "usage_weekly": u[2], "usage_monthly": u[3],
		"byok_usage": 0, "byok_usage_daily": 0, "byok_usage_weekly": 0, "byok_usage_monthly": 0,
		"include_byok_in_limit": false}, nil
}

// keyInfo is GET /api/v1/key: OpenRouter's key object. limit_remaining is
// what the limit leaves in the key's current period (net of requests in
// flight); usage is all-time.
func (s *server) keyInfo(c *fiber.Ctx) error {
	st := api.KeyStatus(c)
	k := st.Key
	var remaining *shlyuz.Credits
	if k.Limit != nil {
		r := max(0, *k.Limit-st.Spent-st.Reserved)
		remaining = &r
	}
	var resetsAt *time.Time // when the limit's spend starts again; null when it never does
	if k.Limit != nil && k.LimitReset != shlyuz.ResetNever && !st.ResetsAt.IsZero() {
		resetsAt = &st.ResetsAt
	}
	out, err := s.keyUsage(c, &k)
	if err != nil {
		return err
	}
	used, err := s.Gw.AccountSpend(c.UserContext(), k.AccountID, time.Time{})
	if err != nil {
		return err
	}
	b, err := s.Gw.Balance(k.AccountID)
	if err != nil {
		return err
	}
	rl := fiber.Map{"requests": -1, "interval": "1m", "note": "requests: this key's requests per minute, -1 for no limit"}
	if k.RateLimit != nil {
		rl["requests_per_minute"], rl["tokens_per_minute"] = k.RateLimit.RequestsPerMinute, k.RateLimit.TokensPerMinute
		if k.RateLimit.RequestsPerMinute > 0 {
			rl["requests"] = k.RateLimit.RequestsPerMinute
		}
	}
	for name, v := range (fiber.Map{
		"label": k.Label, "name": k.Name, "limit": k.Limit, "limit_reset": orLimitReset(k.LimitReset), "limit_remaining": remaining,
		"limit_period_spend": st.Spent, "limit_resets_at": resetsAt, "expires_at": k.ExpiresAt, "rate_limit": rl,
		// never paid: nothing received, spent or left
		"is_free_tier":      used == 0 && b.Balance.Available(time.Now()) == 0,
		"is_management_key": k.Management, "is_provisioning_key": k.Management, "allowed_models": k.AllowedModels, // null: any model
		"creator_user_id": nil, "organization_id": nil, "workspace_id": nil, "allowed_data_regions": []string{},
		"free_model_daily_requests": fiber.Map{"limit": 0, "remaining": 0, "used": 0},
	}) {
		out[name] = v
	}
	return c.JSON(fiber.Map{"data": out})
}

// generation is GET /api/v1/generation?id=: OpenRouter's generation object
// beside our record's fields. total_cost and usage are the credits charged.
func (s *server) generation(c *fiber.Ctx) error {
	id := c.Query("id")
	if id == "" {
		return shlyuz.ErrMissingField("id")
	}
	g, err := s.Gw.Generation(c.UserContext(), api.KeyStatus(c).Key.AccountID, id)
	if err != nil {
		return err
	}
	out, merr := recordMap(g)
	if merr != nil {
		return shlyuz.ErrInternal(merr)
	}
	var finish *string
	if g.FinishReason != "" {
		finish = &g.FinishReason
	}
	var cached, reasoning, images any // null: not reported
	if d := g.PromptDetails; d != nil {
		cached = d.CachedTokens
	}
	if d := g.CompletionDetails; d != nil {
		reasoning, images = d.ReasoningTokens, d.ImageTokens
	}
	var externalUser any // null: the request named no end user
	if g.User != "" {
		externalUser = g.User
	}
	for name, v := range (fiber.Map{
		"created_at": g.CreatedAt.UTC().Format(time.RFC3339Nano), "provider_name": g.Upstream,
		"api_type": s.apiType(g.Model), "cancelled": g.Status == shlyuz.GenerationCancelled,
		"finish_reason": finish, "native_finish_reason": finish,
		"native_tokens_prompt": g.PromptTokens, "native_tokens_completion": g.CompletionTokens,
		"native_tokens_reasoning": reasoning, "native_tokens_cached": cached, "native_tokens_completion_images": images,
		"num_media_prompt": nil, "num_media_completion": nil, "num_input_audio_prompt": nil,
		"num_search_results": nil, "num_fetches": nil,
		"total_cost": g.Credits, "usage": g.Credits, "upstream_inference_cost": nil, "cache_discount": nil,
		"is_byok": false, "latency": g.LatencyMS, "generation_time": nil, "moderation_latency": nil,
		"upstream_id": nil, "router": nil, "app_id": nil, "http_referer": nil,
		"origin": "", "user_agent": nil, "external_user": externalUser, "preset_id": nil, "service_tier": nil,
		"data_region": "global", "web_search_engine": nil, "workspace_id": nil, "provider_responses": nil,
	}) {
		out[name] = v
	}
	return c.JSON(fiber.Map{"data": out})
}

// recordMap is v's JSON object as a map, to add OpenRouter's fields beside ours.
func recordMap(v any) (map[string]any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out map[string]any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber() // whole numbers stay whole, however large
	return out, d.Decode(&out)
}

// apiType is OpenRouter's name of the API that serves the model.
func (s *server) apiType(model string) string {
	m, ok := s.Gw.Catalog().Get(model)
	switch {
	case !ok:
		return "completions"
	case m.Video != nil:
		return "video"
	case m.Image != nil:
		return "image"
	case m.Speech != nil:
		return "tts"
	case m.Transcription != nil && !m.Outputs("text"):
		return "stt"
	}
	return "completions"
}
