package http

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/tokens"
)

// imageInput is OpenAI's image request, with OpenRouter's aspect_ratio.
type imageInput struct {
	Model             string          `json:"model"`
	Prompt            string          `json:"prompt"`
	N                 json.RawMessage `json:"n"`
	Size              string          `json:"size"`
	Quality           string          `json:"quality"`
	Background        string          `json:"background"`
	OutputFormat      string          `json:"output_format"`
	OutputCompression *int            `json:"output_compression"`
	ResponseFormat    string          `json:"response_format"` // always answered as b64_json
	AspectRatio       string          `json:"aspect_ratio"`
	Stream            bool            `json:"stream"`
	Provider          *providerPrefs  `json:"provider"`
}

// imageData is one image of the reply: always base64, never an upstream URL.
type imageData struct {
	B64JSON       string `json:"b64_json"`
	MediaType     string `json:"media_type"`
	RevisedPrompt string `json:"revised_prompt,omitempty"`
}

type imageUsage struct {
	InputTokens  int64          `json:"input_tokens"`
	OutputTokens int64          `json:"output_tokens"`
	TotalTokens  int64          `json:"total_tokens"`
	Images       int            `json:"images"`
	Credits      shlyuz.Credits `json:"credits"`
}

// createImages is POST /api/v1/images (and /images/generations): the images
// whole, in base64, with usage.credits, the exact debit.
func (s *Server) createImages(c *fiber.Ctx) error {
	cat := s.gw.Catalog()
	in, m, opt, n, e := parseImages(c.Body(), cat)
	if e != nil {
		return e
	}
	id := newID("gen-")
	c.Set("X-Generation-Id", id)
	out, u, err := s.makeImages(c, id, c.Locals(localKeyHash).(string), in, m, opt, n)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"created": time.Now().Unix(), "data": out, "usage": u})
}

// makeImages reserves, generates and settles the images of a checked
// request as generation id: the image API's path, and chat's for an
// image-only model (chat_images.go).
func (s *Server) makeImages(c *fiber.Ctx, id, keyHash string, in *imageInput, m *shlyuz.PricedModel, opt shlyuz.ImageOption, n int) ([]imageData, imageUsage, error) {
	cat := s.gw.Catalog()
	call := &actors.MediaCall{
		GenerationID: id, KeyHash: keyHash, Model: m.ID, AllowFallbacks: true,
		Started: time.Now(), Worst: m.ImageWorst(opt, n, tokens.Text(in.Prompt), cat.Pricing),
		Supports: func(u *actors.Upstream) bool { _, ok := u.Provider.(shlyuz.ImageProvider); return ok },
	}
	applyPrefs(call, in.Provider)
	var result *shlyuz.ImageResult
	media, err := s.gw.StartMedia(c.UserContext(), call, func(ctx context.Context, u *actors.Upstream, req *shlyuz.UpstreamRequest) error {
		r, err := u.Provider.(shlyuz.ImageProvider).GenerateImages(ctx, &shlyuz.ImageRequest{
			Model: req.UpstreamModel, Prompt: in.Prompt, N: n, Size: opt.Size, Quality: opt.Quality,
			Background: in.Background, OutputFormat: in.OutputFormat, OutputCompression: in.OutputCompression, AspectRatio: in.AspectRatio})
		result = r
		return err
	})
	if err != nil {
		return nil, imageUsage{}, err
	}
	out := make([]imageData, 0, len(result.Images))
	for _, img := range result.Images {
		if shlyuz.ImageDecodes(img.Data) { // only a decodable image is billed and delivered
			out = append(out, imageData{B64JSON: base64.StdEncoding.EncodeToString(img.Data), MediaType: img.MediaType, RevisedPrompt: img.RevisedPrompt})
		}
	}
	if len(out) == 0 {
		media.Fail(nil)
		return nil, imageUsage{}, shlyuz.ErrUpstream("The upstream produced no image (it may have filtered the result); nothing was charged.")
	}
	cost := m.ImageCost(opt, len(out), result.Usage, cat.Pricing)
	u := imageUsage{Images: len(out)}
	if result.Usage != nil {
		u.InputTokens, u.OutputTokens = result.Usage.InputTokens, result.Usage.OutputTokens
		u.TotalTokens = u.InputTokens + u.OutputTokens
	}
	receipt := media.Settle(cost, shlyuz.Usage{PromptTokens: u.InputTokens, CompletionTokens: u.OutputTokens, TotalTokens: u.TotalTokens},
		shlyuz.GenerationCompleted, "stop")
	u.Credits = receipt.Credits
	return out, u, nil
}

// parseImages reads an image request and checks it against the catalog.
func parseImages(body []byte, cat *shlyuz.Catalog) (*imageInput, *shlyuz.PricedModel, shlyuz.ImageOption, int, *shlyuz.Error) {
	var in imageInput
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&in); err != nil {
		return nil, nil, shlyuz.ImageOption{}, 0, decodeError(err)
	}
	if in.Stream {
		return nil, nil, shlyuz.ImageOption{}, 0, shlyuz.ErrStreamNotSupported("The image API")
	}
	m, opt, n, e := imageCall(cat, &in)
	return &in, m, opt, n, e
}

// imageCall checks the request against the model's image spec: the model,
// its size and quality (defaults filled in), and n.
func imageCall(cat *shlyuz.Catalog, in *imageInput) (*shlyuz.PricedModel, shlyuz.ImageOption, int, *shlyuz.Error) {
	var opt shlyuz.ImageOption
	if in.Model == "" {
		return nil, opt, 0, shlyuz.ErrMissingField("model")
	}
	m, ok := cat.Get(in.Model)
	if !ok {
		return nil, opt, 0, cat.Missing(in.Model)
	}
	if m.Image == nil {
		return nil, opt, 0, shlyuz.ErrInvalidValue("model", "The model %q does not make images through the image API; GET /api/v1/images/models lists those that do.", in.Model)
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return nil, opt, 0, shlyuz.ErrMissingField("prompt")
	}
	n := 1
	if len(in.N) > 0 && string(in.N) != "null" {
		v, err := strconv.Atoi(string(in.N))
		if err != nil {
			return nil, opt, 0, shlyuz.ErrInvalidValue("n", "n is the number of images, a whole number, not %s.", in.N)
		}
		n = v
	}
	spec := m.Image
	opt = shlyuz.ImageOption{Size: in.Size, Quality: in.Quality}
	if opt.Size == "" || opt.Size == "auto" {
		opt.Size = spec.DefaultSize
	}
	if in.AspectRatio != "" {
		size, ok := spec.SizeFor(in.AspectRatio)
		if !ok {
			return nil, opt, 0, shlyuz.ErrInvalidValue("aspect_ratio", "The model %q has no size of aspect ratio %q; its sizes are %s.", m.ID, in.AspectRatio, strings.Join(spec.Sizes, ", "))
		}
		opt.Size = size
	}
	if opt.Quality == "" || opt.Quality == "auto" {
		opt.Quality = spec.DefaultQuality
	}
	if e := spec.Check(m.ID, opt, n, in.OutputFormat, in.Prompt); e != nil {
		return nil, opt, 0, e
	}
	return m, opt, n, nil
}

// imageModel is one entry of GET /api/v1/images/models.
type imageModel struct {
	ID             string   `json:"id"`
	Name           string   `json:"name"`
	Sizes          []string `json:"sizes"`
	DefaultSize    string   `json:"default_size"`
	Qualities      []string `json:"qualities"`
	DefaultQuality string   `json:"default_quality,omitempty"`
	Formats        []string `json:"formats"`
	N              struct {
		Min int `json:"min"`
		Max int `json:"max"`
	} `json:"n"`
	MaxPromptChars int          `json:"max_prompt_chars,omitempty"`
	Pricing        imagePricing `json:"pricing"`
}

// imagePricing names the unit: per image (credits by "size/quality"), or per
// token (the model's token prices, and each option's image tokens).
type imagePricing struct {
	Unit                   string                    `json:"unit"`
	CreditsPerImage        map[string]shlyuz.Credits `json:"credits_per_image,omitempty"`
	CreditsPer1KPrompt     *shlyuz.Decimal           `json:"credits_per_1k_prompt,omitempty"`
	CreditsPer1KCompletion *shlyuz.Decimal           `json:"credits_per_1k_completion,omitempty"`
	OutputTokensPerImage   map[string]int64          `json:"output_tokens_per_image,omitempty"`
}

// imagePricingOf is an image model's pricing (nil for another model), as the
// model lists show it.
func imagePricingOf(m *shlyuz.PricedModel, p shlyuz.Pricing) *imagePricing {
	if m.Image == nil {
		return nil
	}
	ip := toImageModel(m, p).Pricing
	return &ip
}

func toImageModel(m *shlyuz.PricedModel, p shlyuz.Pricing) imageModel {
	s := m.Image
	im := imageModel{ID: m.ID, Name: m.Name, Sizes: s.Sizes, DefaultSize: s.DefaultSize, Qualities: s.Qualities,
		DefaultQuality: s.DefaultQuality, Formats: s.Formats, MaxPromptChars: s.MaxPrompt}
	if im.Qualities == nil {
		im.Qualities = []string{}
	}
	im.N.Min, im.N.Max = 1, max(1, s.MaxN)
	im.Pricing.Unit = s.Unit
	if s.Unit == shlyuz.ImageUnitToken {
		in, out := m.Price.CreditsPer1KPrompt(), m.Price.CreditsPer1KCompletion()
		im.Pricing.CreditsPer1KPrompt, im.Pricing.CreditsPer1KCompletion = &in, &out
		im.Pricing.OutputTokensPerImage = s.OutputTokens
		return im
	}
	im.Pricing.CreditsPerImage = map[string]shlyuz.Credits{}
	for _, size := range s.Sizes {
		for _, q := range append([]string{""}, s.Qualities...) {
			if q == "" && len(s.Qualities) > 0 {
				continue
			}
			key := size
			if q != "" {
				key += "/" + q
			}
			if c := s.CreditsPerImage(shlyuz.ImageOption{Size: size, Quality: q}, p); c > 0 {
				im.Pricing.CreditsPerImage[key] = c
			}
		}
	}
	return im
}

// imageModels is GET /api/v1/images/models: the image API's models this
// gateway can route, with what they take and cost.
func (s *Server) imageModels(c *fiber.Ctx) error {
	cat := s.gw.Catalog()
	out := []imageModel{}
	for _, m := range cat.List() {
		if m.Image != nil && s.gw.Routable(m.ID) {
			out = append(out, toImageModel(m, cat.Pricing))
		}
	}
	return c.JSON(fiber.Map{"object": "list", "data": out})
}

func (s *Server) imageRoutes(v1 fiber.Router) {
	v1.Get("/images/models", s.authenticated, s.imageModels)
	v1.Post("/images", s.authenticated, s.createImages)
	v1.Post("/images/generations", s.authenticated, s.createImages)
}
