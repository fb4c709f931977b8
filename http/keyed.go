package http

import (
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

type v1Model struct {
	ID            string        `json:"id"`
	Object        string        `json:"object"`
	Created       int64         `json:"created,omitempty"` // left out when the catalog does not know it
	OwnedBy       string        `json:"owned_by"`
	Name          string        `json:"name"`
	ContextLength int64         `json:"context_length,omitempty"`
	Architecture  architecture  `json:"architecture"`
	Pricing       v1Pricing     `json:"pricing"`
	TopProvider   topProvider   `json:"top_provider"`
	ImagePricing  *imagePricing `json:"image_pricing,omitempty"` // a model of the image API
	// A model of the audio API: its voices or formats and price.
	SpeechPricing        *speechPricing        `json:"speech_pricing,omitempty"`
	TranscriptionPricing *transcriptionPricing `json:"transcription_pricing,omitempty"`
}

type architecture struct {
	InputModalities  []string `json:"input_modalities"`
	OutputModalities []string `json:"output_modalities"`
}

type v1Pricing struct {
	CreditsPer1KPrompt     shlyuz.Decimal `json:"credits_per_1k_prompt"`
	CreditsPer1KCompletion shlyuz.Decimal `json:"credits_per_1k_completion"`
}

type topProvider struct {
	ContextLength       int64 `json:"context_length,omitempty"`
	MaxCompletionTokens int64 `json:"max_completion_tokens"`
}

// listModels is GET /api/v1/models in OpenAI's list shape: the models this
// gateway can route (the public /api/models lists the whole catalog);
// output_modalities filters (text by default, all, or any modality a model
// of the catalog outputs; another is a 400).
func (s *Server) listModels(c *fiber.Ctx) error {
	want := c.Query("output_modalities", "text")
	cat := s.gw.Catalog()
	list := cat.List()
	if !slices.ContainsFunc(list, func(m *shlyuz.PricedModel) bool { return listsModel(m, want) }) {
		return shlyuz.ErrInvalidValue("output_modalities", "Unknown output modality %q: use all, or one the models output (text, image, …).", want)
	}
	out := make([]v1Model, 0, 64)
	for _, m := range list {
		if listsModel(m, want) && s.gw.Routable(m.ID) {
			out = append(out, toV1Model(m, cat.Pricing))
		}
	}
	return c.JSON(fiber.Map{"object": "list", "data": out})
}

// getModel is GET /api/v1/models/{id} (OpenAI's retrieve): a model this
// gateway can route, or a 404.
func (s *Server) getModel(c *fiber.Ctx) error {
	id := strings.TrimPrefix(c.Params("*"), "/")
	if u, err := url.PathUnescape(id); err == nil { // the SDKs escape the slash of "openai/gpt-4o"
		id = u
	}
	m, ok := s.gw.Catalog().Get(id)
	if !ok {
		return shlyuz.ErrModelNotFound(id)
	}
	if !s.gw.Routable(id) {
		return shlyuz.ErrModelUnavailable(id)
	}
	return c.JSON(toV1Model(m, s.gw.Catalog().Pricing))
}

func toV1Model(m *shlyuz.PricedModel, p shlyuz.Pricing) v1Model {
	return v1Model{
		ID: m.ID, Object: "model", Created: m.Created, OwnedBy: m.Provider(), Name: m.Name,
		ContextLength: m.ContextLength,
		Architecture:  architecture{InputModalities: m.InputModalities, OutputModalities: m.OutputModalities},
		Pricing:       v1Pricing{CreditsPer1KPrompt: m.Price.CreditsPer1KPrompt(), CreditsPer1KCompletion: m.Price.CreditsPer1KCompletion()},
		TopProvider:   topProvider{ContextLength: m.ContextLength, MaxCompletionTokens: m.MaxOutput()},
		ImagePricing:  imagePricingOf(m, p), SpeechPricing: speechPricingOf(m, p), TranscriptionPricing: transcriptionPricingOf(m, p),
	}
}

// keyInfo is GET /api/v1/key.
func (s *Server) keyInfo(c *fiber.Ctx) error {
	st := keyStatus(c)
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
	return c.JSON(fiber.Map{"data": fiber.Map{
		"label": k.Label, "name": k.Name, "limit": k.Limit, "limit_reset": k.LimitReset, "limit_remaining": remaining,
		"limit_resets_at": resetsAt, "usage": st.Spent, "expires_at": k.ExpiresAt, "rate_limit": k.RateLimit,
	}})
}

// credits is GET /api/v1/credits.
func (s *Server) credits(c *fiber.Ctx) error {
	b, err := s.gw.Balance(keyStatus(c).Key.AccountID)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"data": balanceView(b.Balance, b.Reserved, time.Now())})
}

func balanceView(b shlyuz.Balance, reserved shlyuz.Credits, now time.Time) fiber.Map {
	pkg := shlyuz.Credits(0)
	var expires any
	if b.PackageLive(now) {
		pkg, expires = b.PackageCredits, b.PackageExpiresAt
	}
	total := b.Available(now)
	return fiber.Map{
		"package_credits": pkg, "package_expires_at": expires, "bought_credits": b.BoughtCredits,
		"total_credits": total, "reserved_credits": reserved, "rubles": shlyuz.FormatRubles(total),
	}
}

// generation is GET /api/v1/generation?id=.
func (s *Server) generation(c *fiber.Ctx) error {
	id := c.Query("id")
	if id == "" {
		return shlyuz.ErrMissingField("id")
	}
	g, err := s.gw.Generation(c.UserContext(), keyStatus(c).Key.AccountID, id)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"data": g})
}
