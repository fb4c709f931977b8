package openrouter

import (
	"strings"
	"time"

	"github.com/shlyuz/shlyuz/http/internal/api"
	"github.com/shlyuz/shlyuz/http/media"

	shlyuz "github.com/shlyuz/shlyuz"
)

// v1Model is a model record of /api/v1/models in OpenRouter's shape (the
// schema @openrouter/sdk validates), beside our own fields (object, owned_by,
// credits_per_1k_*, the media prices). Every money figure is in credits:
// pricing.prompt is credits per prompt token, so tokens × pricing.prompt is
// in the unit of /credits' total_usage and a generation's total_cost.
// Figures the gateway does not know are null.
type v1Model struct {
	ID                  string              `json:"id"`
	CanonicalSlug       string              `json:"canonical_slug"`
	Object              string              `json:"object"`
	Created             int64               `json:"created"` // 0 when the catalog does not know it
	OwnedBy             string              `json:"owned_by"`
	Name                string              `json:"name"`
	Description         string              `json:"description"`
	HuggingFaceID       *string             `json:"hugging_face_id"`
	ContextLength       *int64              `json:"context_length"` // null when unknown
	Architecture        architecture        `json:"architecture"`
	Pricing             v1Pricing           `json:"pricing"`
	TopProvider         topProvider         `json:"top_provider"`
	PerRequestLimits    *perRequestLimits   `json:"per_request_limits"`
	SupportedParameters []string            `json:"supported_parameters"`
	DefaultParameters   *defaultParameters  `json:"default_parameters"`
	SupportedVoices     []string            `json:"supported_voices"` // null but for speech models
	Links               modelLinks          `json:"links"`
	ImagePricing        *media.ImagePricing `json:"image_pricing,omitempty"` // a model of the image API
	// A model of the audio API: its voices or formats and price.
	SpeechPricing        *media.SpeechPricing        `json:"speech_pricing,omitempty"`
	TranscriptionPricing *media.TranscriptionPricing `json:"transcription_pricing,omitempty"`
	// ExpirationDate is the day the model retires ("YYYY-MM-DD"), null when
	// none is announced; DeprecationDate and Successor are ours beside it.
	ExpirationDate  *string `json:"expiration_date"`
	DeprecationDate string  `json:"deprecation_date,omitempty"`
	Successor       string  `json:"successor,omitempty"`
}

type architecture struct {
	Modality         string   `json:"modality"` // "text+image->text"
	InputModalities  []string `json:"input_modalities"`
	OutputModalities []string `json:"output_modalities"`
	Tokenizer        string   `json:"tokenizer"`
	InstructType     *string  `json:"instruct_type"`
}

// v1Pricing is OpenRouter's pricing object in credits per unit, as decimal
// strings: per token for the token parts, per request for request. Every
// part of the price model is shown: a part the list does not price apart
// holds what it bills as (a cached read the prompt price, reasoning the
// completion price); a fee the gateway never charges (web search) is "0".
// Overrides hold the long-context price above its prompt size.
type v1Pricing struct {
	Prompt                 string          `json:"prompt"`
	Completion             string          `json:"completion"`
	InputCacheRead         string          `json:"input_cache_read"`
	InputCacheWrite        string          `json:"input_cache_write"`
	InputCacheWrite1h      string          `json:"input_cache_write_1h"`
	InternalReasoning      string          `json:"internal_reasoning"`
	Image                  string          `json:"image"`       // per input image token
	ImageToken             string          `json:"image_token"` // the same
	ImageOutput            string          `json:"image_output"`
	Audio                  string          `json:"audio"` // per input audio token
	AudioOutput            string          `json:"audio_output"`
	Request                string          `json:"request"`
	WebSearch              string          `json:"web_search"`
	Overrides              []priceOverride `json:"overrides,omitempty"`
	CreditsPer1KPrompt     shlyuz.Decimal  `json:"credits_per_1k_prompt"`
	CreditsPer1KCompletion shlyuz.Decimal  `json:"credits_per_1k_completion"`
}

// priceOverride is OpenRouter's conditional price: above min_prompt_tokens
// prompt tokens, these parts replace the base ones.
type priceOverride struct {
	MinPromptTokens   int64  `json:"min_prompt_tokens"`
	Prompt            string `json:"prompt"`
	Completion        string `json:"completion"`
	InputCacheRead    string `json:"input_cache_read"`
	InputCacheWrite   string `json:"input_cache_write"`
	InputCacheWrite1h string `json:"input_cache_write_1h"`
	Audio             string `json:"audio"`
}

type topProvider struct {
	ContextLength       *int64 `json:"context_length"`
	MaxCompletionTokens *int64 `json:"max_completion_tokens"`
	IsModerated         bool   `json:"is_moderated"` // the gateway moderates nothing
}

type perRequestLimits struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
}

// defaultParameters are the sampling defaults a model applies when a request
// leaves them out; the catalog knows none, so each is null.
type defaultParameters struct {
	Temperature      *float64 `json:"temperature"`
	TopP             *float64 `json:"top_p"`
	FrequencyPenalty *float64 `json:"frequency_penalty"`
}

type modelLinks struct {
	Details string `json:"details"` // the model's endpoints
}

// toV1Model is the model's record; params are the request parameters its
// first upstream takes, searchFee the gateway's web search fee.
func toV1Model(m *shlyuz.PricedModel, p shlyuz.Pricing, params []string, searchFee int64) v1Model {
	var ctx *int64
	if m.ContextLength > 0 {
		ctx = &m.ContextLength
	}
	maxOut := m.MaxOutput()
	if params == nil {
		params = []string{}
	}
	var voices []string
	if m.Speech != nil {
		voices = m.Speech.Voices
	}
	return v1Model{
		ID: m.ID, CanonicalSlug: m.ID, Object: "model", Created: m.Created, OwnedBy: m.Provider(), Name: m.Name,
		ContextLength: ctx, Architecture: architectureOf(m), Pricing: pricingOf(m.Price, chatSearchFee(m, searchFee)),
		TopProvider:         topProvider{ContextLength: ctx, MaxCompletionTokens: &maxOut},
		SupportedParameters: params, DefaultParameters: &defaultParameters{}, SupportedVoices: voices,
		Links:        modelLinks{Details: "/api/v1/models/" + api.EscapeModelID(m.ID) + "/endpoints"},
		ImagePricing: media.ImagePricingOf(m, p), SpeechPricing: media.SpeechPricingOf(m, p), TranscriptionPricing: media.TranscriptionPricingOf(m, p),
		ExpirationDate: expirationOf(m), DeprecationDate: deprecationOf(m), Successor: m.Successor,
	}
}

// expirationOf is the model's expiration_date, nil when none is known.
func expirationOf(m *shlyuz.PricedModel) *string {
	if d := m.ExpirationDay(); d != "" {
		return &d
	}
	return nil
}

// deprecationOf is the day the model is deprecated from ("YYYY-MM-DD"), "" when never.
func deprecationOf(m *shlyuz.PricedModel) string {
	if t := m.DeprecatedAt(); !t.IsZero() {
		return t.UTC().Format(time.DateOnly)
	}
	return ""
}

func architectureOf(m *shlyuz.PricedModel) architecture {
	in, out := m.InputModalities, m.OutputModalities
	if in == nil {
		in = []string{}
	}
	if out == nil {
		out = []string{}
	}
	return architecture{
		Modality:        strings.Join(in, "+") + "->" + strings.Join(out, "+"),
		InputModalities: in, OutputModalities: out, Tokenizer: tokenizerOf(m.Provider()),
	}
}

// tokenizers names the tokenizer family of a model author, in OpenRouter's words.
var tokenizers = map[string]string{
	"openai": "GPT", "anthropic": "Claude", "google": "Gemini", "x-ai": "Grok", "cohere": "Cohere",
	"amazon": "Nova", "qwen": "Qwen", "01-ai": "Yi", "deepseek": "DeepSeek", "mistralai": "Mistral",
	"meta-llama": "Llama3",
}

func tokenizerOf(author string) string {
	if t, ok := tokenizers[author]; ok {
		return t
	}
	return "Other"
}

// chatSearchFee is the gateway's web search fee for a chat model, 0 for
// one outside chat (the web plugin serves chat only).
func chatSearchFee(m *shlyuz.PricedModel, fee int64) int64 {
	if m.Video != nil || m.Image != nil || m.Speech != nil || !m.Outputs("text") || m.MakesEmbeddings() {
		return 0
	}
	return fee
}

// pricingOf is the price in OpenRouter's pricing object, in credits.
// web_search is the model's own search fee (searches its upstream runs)
// or, for a model without one, the gateway engine's (searchFee).
func pricingOf(pr shlyuz.Price, searchFee int64) v1Pricing {
	if pr.WebSearchMicro == 0 {
		pr.WebSearchMicro = searchFee
	}
	out := v1Pricing{
		Prompt: perToken(pr.PromptMicro), Completion: perToken(pr.CompletionMicro),
		InputCacheRead: perToken(pr.CacheReadMicro), InputCacheWrite: perToken(pr.CacheWriteMicro),
		InputCacheWrite1h: perToken(pr.CacheWrite1hMicro), InternalReasoning: perToken(pr.ReasoningMicro),
		Image: perToken(pr.ImageInMicro), ImageToken: perToken(pr.ImageInMicro), ImageOutput: perToken(pr.ImageOutMicro),
		Audio: perToken(pr.AudioInMicro), AudioOutput: perToken(pr.AudioOutMicro),
		Request: perToken(pr.RequestMicro), WebSearch: perToken(pr.WebSearchMicro),
		CreditsPer1KPrompt: pr.CreditsPer1KPrompt(), CreditsPer1KCompletion: pr.CreditsPer1KCompletion(),
	}
	if l := pr.Long; l != nil && pr.LongAbove > 0 {
		out.Overrides = []priceOverride{{MinPromptTokens: pr.LongAbove, Prompt: perToken(l.PromptMicro), Completion: perToken(l.CompletionMicro),
			InputCacheRead: perToken(l.CacheReadMicro), InputCacheWrite: perToken(l.CacheWriteMicro),
			InputCacheWrite1h: perToken(l.CacheWrite1hMicro), Audio: perToken(l.AudioInMicro)}}
	}
	return out
}

// perToken is micro-credits per token as a decimal string of credits per token.
func perToken(micro int64) string {
	return shlyuz.NewDecimalFrac(micro, shlyuz.MicroPerCredit).String()
}

// parametersOf is what a chat request of the model may carry through the
// upstream's protocol; none for a model outside chat (image, audio, video).
func parametersOf(m *shlyuz.PricedModel, protocol string) []string {
	if m.Video != nil || m.Image != nil || m.Speech != nil || !m.Outputs("text") {
		return []string{}
	}
	if p := shlyuz.ChatParameters(protocol, m.ID); p != nil {
		return p
	}
	return []string{}
}
