package shlyuz

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	_ "image/gif" // decoders for ImageDecodes
	_ "image/jpeg"
	_ "image/png"
	"slices"
	"strconv"
	"strings"
)

// Image pricing units: what an image model's price counts.
const (
	// ImageUnitImage prices each image produced by its size and quality
	// (dall-e-3, Imagen, FLUX): the upstream reports no usage.
	ImageUnitImage = "image"
	// ImageUnitToken prices the upstream's reported tokens (gpt-image): the
	// prompt at the model's prompt price, the image output tokens at its
	// completion price (Model.USD).
	ImageUnitToken = "token"
	// ImageUnitMegapixel prices each image by its megapixels (FLUX.2):
	// USDPerMegapixel × width × height / 1,000,000, unless the upstream
	// reported the call's cost itself.
	ImageUnitMegapixel = "megapixel"
)

// ImageSpec is what an image model accepts and costs (a catalog model's Image).
type ImageSpec struct {
	Sizes          []string `json:"sizes" yaml:"sizes"` // "1024x1024"
	DefaultSize    string   `json:"default_size" yaml:"default_size"`
	Qualities      []string `json:"qualities,omitempty" yaml:"qualities"` // "low", "medium", "high" or "standard", "hd"
	DefaultQuality string   `json:"default_quality,omitempty" yaml:"default_quality"`
	Formats        []string `json:"formats" yaml:"formats"` // "png", "jpeg", "webp"
	MaxN           int      `json:"max_n" yaml:"max_n"`
	MaxPrompt      int      `json:"max_prompt_chars" yaml:"max_prompt_chars"`
	Unit           string   `json:"unit" yaml:"unit"` // ImageUnitImage or ImageUnitToken
	// USDPerImage is one image's price by "size/quality" ("1024x1024/hd"),
	// with "size" alone and "*" as fallbacks (ImageUnitImage).
	USDPerImage map[string]Decimal `json:"usd_per_image,omitempty" yaml:"usd_per_image"`
	// OutputTokens is one image's output tokens by the same keys: the most a
	// token-priced image is reserved for (ImageUnitToken).
	OutputTokens map[string]int64 `json:"output_tokens,omitempty" yaml:"output_tokens"`
	// USDPerMegapixel is a megapixel's price (ImageUnitMegapixel).
	USDPerMegapixel Decimal `json:"usd_per_megapixel,omitzero" yaml:"usd_per_megapixel"`
}

// ImageOption is one generation's choice of size and quality.
type ImageOption struct{ Size, Quality string }

// lookup finds the value for o in a table keyed "size/quality", "size" or "*".
func lookup[V any](table map[string]V, o ImageOption) (V, bool) {
	for _, k := range []string{o.Size + "/" + o.Quality, o.Size, "*"} {
		if v, ok := table[k]; ok {
			return v, true
		}
	}
	var zero V
	return zero, false
}

// Check says which field of a request the spec refuses, if any, with the
// accepted values in the message.
func (s *ImageSpec) Check(model string, o ImageOption, n int, format string, prompt string) *Error {
	switch {
	case !slices.Contains(s.Sizes, o.Size):
		return ErrInvalidValue("size", "The model %q makes images of size %s, not %q.", model, joinQuoted(s.Sizes), o.Size)
	case len(s.Qualities) > 0 && !slices.Contains(s.Qualities, o.Quality):
		return ErrInvalidValue("quality", "The model %q takes the qualities %s, not %q.", model, joinQuoted(s.Qualities), o.Quality)
	case n < 1 || n > max(1, s.MaxN):
		return ErrInvalidValue("n", "The model %q makes 1 to %d images a request, not %d.", model, max(1, s.MaxN), n)
	case format != "" && !slices.Contains(s.Formats, format):
		return ErrInvalidValue("output_format", "The model %q writes %s, not %q.", model, joinQuoted(s.Formats), format)
	case s.MaxPrompt > 0 && len([]rune(prompt)) > s.MaxPrompt:
		return ErrInvalidValue("prompt", "The prompt has %d characters; the model %q takes at most %d.", len([]rune(prompt)), model, s.MaxPrompt)
	}
	if _, ok := s.unitPrice(o); !ok {
		return ErrInvalidValue("size", "The model %q has no price for size %q and quality %q.", model, o.Size, o.Quality)
	}
	return nil
}

// unitPrice reports whether the spec prices option o at all.
func (s *ImageSpec) unitPrice(o ImageOption) (any, bool) {
	switch s.Unit {
	case ImageUnitToken:
		return lookup(s.OutputTokens, o)
	case ImageUnitMegapixel:
		w, h, ok := cutInts(o.Size, "x")
		return w * h, ok && s.USDPerMegapixel.Sign() > 0
	}
	return lookup(s.USDPerImage, o)
}

// usdPerImage is one image of option o in US dollars (ImageUnitImage and
// ImageUnitMegapixel).
func (s *ImageSpec) usdPerImage(o ImageOption) (Decimal, bool) {
	if s.Unit == ImageUnitMegapixel {
		w, h, ok := cutInts(o.Size, "x")
		return s.USDPerMegapixel.MulInt(int64(w) * int64(h)).Quo(1_000_000), ok
	}
	return lookup(s.USDPerImage, o)
}

// CreditsPerImage is one image of option o in credits under p (per image or
// per megapixel), rounded up to a whole credit; 0 when the spec does not price o.
func (s *ImageSpec) CreditsPerImage(o ImageOption, p Pricing) Credits {
	usd, ok := s.usdPerImage(o)
	if !ok {
		return 0
	}
	return usdCredits(usd, p)
}

// usdCredits is an amount in US dollars in credits under p, rounded up.
func usdCredits(usd Decimal, p Pricing) Credits { return USDInCredits(usd, p).Ceil() }

// USDInCredits is an amount in US dollars in credits under p, exactly (a
// price shown per unit; charges round up).
func USDInCredits(usd Decimal, p Pricing) Decimal {
	return usd.Mul(p.Rate).Mul(p.K).MulInt(CreditsPerRuble)
}

// ImageWorst is the most a request for n images of option o may cost at the
// catalog price: n images, or for a token-priced model the prompt's
// reservation estimate and n images' output tokens.
func (m *PricedModel) ImageWorst(o ImageOption, n int, promptTokens int64, p Pricing) Credits {
	s := m.Image
	if s.Unit == ImageUnitToken {
		out, _ := lookup(s.OutputTokens, o)
		return m.Price.Charge(promptTokens+16, int64(n)*out)
	}
	return Credits(n) * s.CreditsPerImage(o, p)
}

// ImageCost is what a generation that produced images costs at the catalog
// price: the upstream's reported cost when it reports one, else per image
// produced, or by the upstream's reported tokens (falling back to the
// option's table when it reported none).
func (m *PricedModel) ImageCost(o ImageOption, images int, u *ImageUsage, p Pricing) Credits {
	s := m.Image
	if u != nil && u.CostUSD != nil {
		return usdCredits(*u.CostUSD, p)
	}
	if s.Unit != ImageUnitToken {
		return Credits(images) * s.CreditsPerImage(o, p)
	}
	if u == nil || u.OutputTokens == 0 {
		out, _ := lookup(s.OutputTokens, o)
		return m.Price.Charge(0, int64(images)*out)
	}
	return m.Price.Charge(u.InputTokens, u.OutputTokens)
}

// ImageRequest is an image generation as it goes to an upstream.
type ImageRequest struct {
	Model             string // the model's name at the upstream
	Prompt            string
	N                 int
	Size              string
	Quality           string
	Background        string
	OutputFormat      string
	OutputCompression *int
	AspectRatio       string // OpenRouter's, for upstreams that take a ratio
}

// GeneratedImage is one image an upstream produced, as bytes.
type GeneratedImage struct {
	Data          []byte
	MediaType     string // "image/png"
	RevisedPrompt string
}

// ImageUsage is what an upstream reported an image generation used.
type ImageUsage struct {
	InputTokens  int64 `json:"input_tokens"`
	OutputTokens int64 `json:"output_tokens"`
	// CostUSD is the call's price as the upstream reported it (BFL's cost
	// credits at $0.01), billed instead of the catalog's reckoning.
	CostUSD *Decimal `json:"-"`
}

// ImageResult is an upstream's finished image generation.
type ImageResult struct {
	Images []GeneratedImage
	Usage  *ImageUsage // nil: the upstream reported none
}

// ImageProvider is the capability of an adapter that generates images
// through an image API. Errors are *Error values as for Chat; a refused
// prompt is ErrContentPolicy.
type ImageProvider interface {
	GenerateImages(ctx context.Context, req *ImageRequest) (*ImageResult, error)
}

func joinQuoted(vs []string) string {
	b, _ := json.Marshal(vs)
	return string(b)
}

// SizeFor is the spec's first size of the aspect ratio "w:h".
func (s *ImageSpec) SizeFor(ratio string) (string, bool) {
	rw, rh, ok := cutInts(ratio, ":")
	if !ok {
		return "", false
	}
	for _, size := range s.Sizes {
		if w, h, ok := cutInts(size, "x"); ok && w*rh == h*rw {
			return size, true
		}
	}
	return "", false
}

func cutInts(s, sep string) (int, int, bool) {
	a, b, ok := strings.Cut(s, sep)
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	return x, y, ok && err1 == nil && err2 == nil && x > 0 && y > 0
}

// ImageDecodes reports whether b is a whole image the gateway can vouch for:
// a PNG, JPEG or GIF that decodes, or a WebP container. Only such images are
// delivered and billed.
func ImageDecodes(b []byte) bool {
	if len(b) > 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP" {
		return true
	}
	_, _, err := image.Decode(bytes.NewReader(b))
	return err == nil
}
