package shlyuz

import "testing"

func TestImagePrices(t *testing.T) {
	p := Pricing{Rate: MustDecimal("100"), K: MustDecimal("1")}
	_, byID := embeddedModelsByID(t)
	cat := NewCatalog([]Model{byID["openai/dall-e-3"], byID["openai/dall-e-2"], byID["openai/gpt-image-1"], byID["black-forest-labs/flux-2-pro"]}, p)
	get := func(id string) *PricedModel {
		m, ok := cat.Get(id)
		if !ok || m.Image == nil {
			t.Fatalf("%s: not an image model of the catalog", id)
		}
		return m
	}
	cases := []struct {
		model   string
		opt     ImageOption
		n       int
		usage   *ImageUsage
		worst   Credits
		cost    Credits
		comment string
	}{
		{"openai/dall-e-3", ImageOption{"1024x1024", "standard"}, 1, nil, 400_000, 400_000, "$0.04 × 100 ₽/$ × 100,000"},
		{"openai/dall-e-3", ImageOption{"1792x1024", "hd"}, 1, nil, 1_200_000, 1_200_000, "$0.12"},
		{"openai/dall-e-2", ImageOption{"256x256", ""}, 3, nil, 480_000, 480_000, "3 × $0.016"},
		// 2 × 4160 image tokens at $40/1M = $0.3328; the prompt "a cat" reserves 2 + 16 tokens at $5/1M
		{"openai/gpt-image-1", ImageOption{"1024x1024", "high"}, 2, &ImageUsage{InputTokens: 10, OutputTokens: 4000}, 3_328_000 + 18*50, 1_600_000 + 10*50, "by usage"},
		{"openai/gpt-image-1", ImageOption{"1024x1024", "low"}, 1, nil, 272*400 + 18*50, 272 * 400, "no usage: the table"},
		// 1.048576 MP × $0.03 = $0.03145728 → 314,572.8 credits, rounded up
		{"black-forest-labs/flux-2-pro", ImageOption{"1024x1024", ""}, 2, nil, 2 * 314_573, 2 * 314_573, "per megapixel"},
		{"black-forest-labs/flux-2-pro", ImageOption{"1024x1024", ""}, 1, &ImageUsage{CostUSD: ptrDecimal("0.03")}, 314_573, 300_000, "the cost the upstream reported"},
	}
	for _, tc := range cases {
		m := get(tc.model)
		if w := m.ImageWorst(tc.opt, tc.n, 2, p); w != tc.worst { // "a cat": 2 tokens at most
			t.Errorf("%s %v ×%d: worst %d, want %d (%s)", tc.model, tc.opt, tc.n, w, tc.worst, tc.comment)
		}
		if c := m.ImageCost(tc.opt, tc.n, tc.usage, p); c != tc.cost {
			t.Errorf("%s %v ×%d: cost %d, want %d (%s)", tc.model, tc.opt, tc.n, c, tc.cost, tc.comment)
		}
	}
}

// TestEveryImageOptionIsPriced: each size and quality an image model of the
// catalog offers has a price, and its default is one of them.
func TestEveryImageOptionIsPriced(t *testing.T) {
	models, _ := embeddedModelsByID(t)
	found := 0
	for _, m := range models {
		s := m.Image
		if s == nil {
			continue
		}
		found++
		qs := s.Qualities
		if len(qs) == 0 {
			qs = []string{""}
		}
		for _, size := range s.Sizes {
			for _, q := range qs {
				if e := s.Check(m.ID, ImageOption{size, q}, 1, "", "x"); e != nil {
					t.Errorf("%s %s/%s: %s", m.ID, size, q, e.Message)
				}
			}
		}
		if e := s.Check(m.ID, ImageOption{s.DefaultSize, s.DefaultQuality}, 1, "", "x"); e != nil {
			t.Errorf("%s: its default: %s", m.ID, e.Message)
		}
	}
	if found < 5 {
		t.Fatalf("%d image models in the catalog", found)
	}
}

func TestImageSizeForAspectRatio(t *testing.T) {
	s := &ImageSpec{Sizes: []string{"1024x1024", "1024x1536", "1536x1024"}}
	for ratio, want := range map[string]string{"1:1": "1024x1024", "2:3": "1024x1536", "3:2": "1536x1024", "16:9": "", "x": ""} {
		if got, _ := s.SizeFor(ratio); got != want {
			t.Errorf("%s: %q, want %q", ratio, got, want)
		}
	}
}

func ptrDecimal(s string) *Decimal {
	d := MustDecimal(s)
	return &d
}
