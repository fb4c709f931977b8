package http

import (
	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

type publicModel struct {
	ID                     string                `json:"id"`
	Name                   string                `json:"name"`
	ContextLength          int64                 `json:"context_length,omitempty"` // left out when unknown
	Available              bool                  `json:"available"`                // this gateway routes it
	MaxOutputTokens        int64                 `json:"max_output_tokens"`
	InputModalities        []string              `json:"input_modalities"`
	OutputModalities       []string              `json:"output_modalities"`
	CreditsPer1KPrompt     shlyuz.Decimal        `json:"credits_per_1k_prompt"`
	CreditsPer1KCompletion shlyuz.Decimal        `json:"credits_per_1k_completion"`
	CreditsPer1KParts      *partsPer1K           `json:"credits_per_1k_parts,omitempty"` // cache, reasoning, audio…, the long-context tier
	VideoPricing           *videoPricing         `json:"video_pricing,omitempty"`        // a model of the video API
	ImagePricing           *imagePricing         `json:"image_pricing,omitempty"`        // a model of the image API
	SpeechPricing          *speechPricing        `json:"speech_pricing,omitempty"`
	TranscriptionPricing   *transcriptionPricing `json:"transcription_pricing,omitempty"`
	// The model's lifecycle, when one is announced: see v1Model.
	DeprecationDate string `json:"deprecation_date,omitempty"`
	ExpirationDate  string `json:"expiration_date,omitempty"`
	Successor       string `json:"successor,omitempty"`
}

// publicModels is GET /api/models: every model with its price in credits.
func (s *Server) publicModels(c *fiber.Ctx) error {
	cat := s.gw.Catalog()
	list := cat.List()
	out := make([]publicModel, len(list))
	for i, m := range list {
		out[i] = publicModel{
			ID: m.ID, Name: m.Name, ContextLength: m.ContextLength, Available: s.gw.Routable(m.ID), MaxOutputTokens: m.MaxOutput(),
			InputModalities: m.InputModalities, OutputModalities: m.OutputModalities,
			CreditsPer1KPrompt: m.Price.CreditsPer1KPrompt(), CreditsPer1KCompletion: m.Price.CreditsPer1KCompletion(),
			ImagePricing: imagePricingOf(m, cat.Pricing), SpeechPricing: speechPricingOf(m, cat.Pricing),
			TranscriptionPricing: transcriptionPricingOf(m, cat.Pricing),
			CreditsPer1KParts:    partsOf(&m.Price), VideoPricing: videoPricingOf(m, cat.Pricing),
			DeprecationDate: deprecationOf(m), ExpirationDate: m.ExpirationDay(), Successor: m.Successor,
		}
	}
	return c.JSON(fiber.Map{"data": out})
}

// publicPricing is GET /api/pricing.
func (s *Server) publicPricing(c *fiber.Ctx) error {
	st, _, err := s.gw.Store().Settings(c.UserContext())
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	p := s.gw.Catalog().Pricing
	out := fiber.Map{"rate": p.Rate, "K": p.K, "credits_per_ruble": shlyuz.CreditsPerRuble, "currency": "RUB"}
	if !st.UpdatedAt.IsZero() { // set once the operator changed the pricing; the config's is undated
		out["updated_at"] = st.UpdatedAt
	}
	return c.JSON(out)
}

// publicPlans is GET /api/plans.
func (s *Server) publicPlans(c *fiber.Ctx) error {
	plans, err := s.gw.Store().Plans(c.UserContext())
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	if plans == nil {
		plans = []shlyuz.Plan{}
	}
	return c.JSON(fiber.Map{"data": plans})
}
