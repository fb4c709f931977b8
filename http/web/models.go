package web

import (
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

// The modalities a model is listed under, in the filter's order.
var modalities = []string{"text", "image", "video", "speech", "transcription", "embedding"}

// modalityOf is what a model makes: its media spec first, then its outputs.
func modalityOf(m *shlyuz.PricedModel) string {
	switch {
	case m.Video != nil:
		return "video"
	case m.Speech != nil:
		return "speech"
	case m.Transcription != nil:
		return "transcription"
	case m.Image != nil:
		return "image"
	case m.Outputs("embeddings") || m.Outputs("embedding"):
		return "embedding"
	case m.Outputs("text"):
		return "text"
	case m.Outputs("image"):
		return "image"
	}
	return "text"
}

// unitPrice is one price of a model in its own unit; PerUnit is in credits.
type unitPrice struct {
	Label, Unit string // message keys: what is priced and per what
	PerUnit     shlyuz.Decimal
	Known       bool
}

func priced(label, unit string, credits shlyuz.Decimal) unitPrice {
	return unitPrice{Label: label, Unit: unit, PerUnit: credits, Known: credits.Sign() > 0}
}

// perMTokens is a per-token price (micro-credits) as credits per million tokens.
func perMTokens(micro int64) shlyuz.Decimal { return shlyuz.NewDecimalFrac(micro, 1) }

// pricesOf are a model's prices, each in the unit the model is billed in:
// tokens per million, an image, a second of video, a thousand characters of
// speech, a minute of transcribed audio.
func pricesOf(m *shlyuz.PricedModel, p shlyuz.Pricing) []unitPrice {
	tokens := []unitPrice{
		priced("price_in", "per_mtok", perMTokens(m.Price.PromptMicro)),
		priced("price_out", "per_mtok", perMTokens(m.Price.CompletionMicro)),
	}
	switch {
	case m.Video != nil:
		return []unitPrice{priced("price", "per_second", shlyuz.NewDecimalFrac(m.Video.CreditsPerSecond(p), 1))}
	case m.Speech != nil && m.Speech.Unit == shlyuz.AudioUnitCharacter:
		return []unitPrice{priced("price", "per_kchars", shlyuz.USDInCredits(m.Speech.USDPerMChars, p).Quo(1000))}
	case m.Speech != nil:
		return append(tokens[:1], priced("price_audio_out", "per_mtok", shlyuz.USDInCredits(m.Speech.USDPerMAudioTokens, p)))
	case m.Transcription != nil && m.Transcription.Unit == shlyuz.AudioUnitSecond:
		return []unitPrice{priced("price", "per_minute", shlyuz.USDInCredits(m.Transcription.USDPerMinute, p))}
	case m.Transcription != nil:
		return append([]unitPrice{priced("price_audio_in", "per_mtok", shlyuz.USDInCredits(m.Transcription.USDPerMAudioTokens, p))}, tokens[1])
	case m.Image != nil && m.Image.Unit != shlyuz.ImageUnitToken:
		o := shlyuz.ImageOption{Size: m.Image.DefaultSize, Quality: m.Image.DefaultQuality}
		return []unitPrice{priced("price", "per_image", shlyuz.NewDecimalFrac(m.Image.CreditsPerImage(o, p), 1))}
	case modalityOf(m) == "embedding":
		return tokens[:1]
	}
	return tokens
}

type modelRow struct {
	ID, Name, Modality, Provider string
	Context                      int64
	Served                       bool
	Prices                       []unitPrice
	// Deprecated: the model is still sold but retires (on Retires, "" when
	// no date is known); Successor replaces it.
	Deprecated         bool
	Retires, Successor string
}

// lifecycleOf marks a deprecated model's row.
func lifecycleOf(row *modelRow, m *shlyuz.PricedModel, now time.Time) {
	if m.Deprecated(now) {
		row.Deprecated, row.Retires, row.Successor = true, m.ExpirationDay(), m.Successor
	}
}

// landingPage is how many model cards a page of the landing shows.
const landingPage = 48

type landingData struct {
	Prev, Next            string
	Models                []modelRow
	Count                 int64
	Q, Modality, Provider string
	All                   bool
	Modalities, Providers []string
}

// landing lists the models this gateway serves (?all=1: the whole catalog,
// the rest marked), searchable by name and filtered by modality and provider.
func (w *Web) landing(c *fiber.Ctx) error {
	d := landingData{Q: strings.TrimSpace(c.Query("q")), Modality: c.Query("modality"), Provider: c.Query("provider"), All: c.Query("all") != ""}
	q := strings.ToLower(d.Q)
	cat := w.gw.Catalog()
	seenMod, seenProv := map[string]bool{}, map[string]bool{}
	for _, m := range cat.List() {
		served := w.gw.Routable(m.ID)
		if !served && !d.All {
			continue
		}
		row := modelRow{ID: m.ID, Name: m.Name, Modality: modalityOf(m), Provider: m.Provider(), Context: m.ContextLength, Served: served}
		seenMod[row.Modality], seenProv[row.Provider] = true, true
		if q != "" && !strings.Contains(strings.ToLower(m.ID+" "+m.Name), q) ||
			d.Modality != "" && row.Modality != d.Modality || d.Provider != "" && row.Provider != d.Provider {
			continue
		}
		if row.Name == "" {
			row.Name = m.ID
		}
		row.Prices = pricesOf(m, cat.Pricing)
		lifecycleOf(&row, m, cat.Now())
		d.Models = append(d.Models, row)
	}
	for _, m := range modalities {
		if seenMod[m] {
			d.Modalities = append(d.Modalities, m)
		}
	}
	for p := range seenProv {
		d.Providers = append(d.Providers, p)
	}
	sort.Strings(d.Providers)
	sort.SliceStable(d.Models, func(i, j int) bool { return d.Models[i].Served && !d.Models[j].Served })
	d.Count = int64(len(d.Models))
	page := max(c.QueryInt("page", 1), 1)
	q2 := url.Values{}
	for k, v := range map[string]string{"q": d.Q, "modality": d.Modality, "provider": d.Provider, "all": c.Query("all")} {
		if v != "" {
			q2.Set(k, v)
		}
	}
	link := func(p int) string { q2.Set("page", strconv.Itoa(p)); return "/?" + q2.Encode() }
	if page > 1 {
		d.Prev = link(page - 1)
	}
	if page*landingPage < len(d.Models) {
		d.Next = link(page + 1)
	}
	d.Models = d.Models[min((page-1)*landingPage, len(d.Models)):min(page*landingPage, len(d.Models))]
	return w.render(c, fiber.StatusOK, "landing", "brand", d, "", "")
}

// chatModels are the served models the web chat offers (text, or pictures
// through chat), and the one it starts with: the cheapest text model.
func (w *Web) chatModels() (models []string, first string) {
	var cheapest int64
	for _, m := range w.gw.Catalog().List() {
		if !w.gw.Routable(m.ID) || m.Video != nil || m.Speech != nil || m.Transcription != nil || m.Image != nil {
			continue
		}
		if mod := modalityOf(m); mod == "text" || mod == "image" {
			models = append(models, m.ID)
			cost := m.Price.PromptMicro + m.Price.CompletionMicro
			if mod == "text" && (first == "" || cost < cheapest) {
				first, cheapest = m.ID, cost
			}
		}
	}
	if first == "" && len(models) > 0 {
		first = models[0]
	}
	return models, first
}

// servedForChat reports whether the web chat may call the model.
func (w *Web) servedForChat(id string) bool {
	models, _ := w.chatModels()
	return slices.Contains(models, id)
}

type modelPageData struct {
	modelRow
	MaxOutput        int64
	Inputs, Outputs  []string
	APIBase, Snippet string
	Chat             bool // the web chat offers it
}

// modelPage is GET /models/<id>: one model, what it takes and makes, its
// prices in its own units, and how to call it.
func (w *Web) modelPage(c *fiber.Ctx) error {
	id, _ := url.PathUnescape(c.Params("*"))
	cat := w.gw.Catalog()
	m, ok := cat.Get(id)
	if !ok {
		return w.errorPage(c, fiber.StatusNotFound)
	}
	d := modelPageData{modelRow: modelRow{ID: m.ID, Name: m.Name, Modality: modalityOf(m), Provider: m.Provider(),
		Context: m.ContextLength, Served: w.gw.Routable(m.ID), Prices: pricesOf(m, cat.Pricing)},
		MaxOutput: m.MaxOutputTokens, Inputs: m.InputModalities, Outputs: m.OutputModalities,
		APIBase: w.cfg.PublicURL + "/api/v1", Chat: w.servedForChat(m.ID)}
	if d.Name == "" {
		d.Name = m.ID
	}
	lifecycleOf(&d.modelRow, m, cat.Now())
	p := &page{Lang: langOf(c)}
	switch d.Modality {
	case "text":
		d.Snippet = "chat/completions \\\n  -d '{\"model\": \"" + m.ID + "\", \"messages\": [{\"role\": \"user\", \"content\": \"" + p.T("snippet_hello") + "\"}]}'"
	case "image":
		if m.Image != nil {
			d.Snippet = "images/generations \\\n  -d '{\"model\": \"" + m.ID + "\", \"prompt\": \"" + p.T("snippet_cat") + "\"}'"
		} else {
			d.Snippet = "chat/completions \\\n  -d '{\"model\": \"" + m.ID + "\", \"messages\": [{\"role\": \"user\", \"content\": \"" + p.T("snippet_cat") + "\"}]}'"
		}
	case "speech":
		d.Snippet = "audio/speech \\\n  -d '{\"model\": \"" + m.ID + "\", \"input\": \"" + p.T("snippet_hello") + "\"}' -o speech.mp3"
	case "embedding":
		d.Snippet = "embeddings \\\n  -d '{\"model\": \"" + m.ID + "\", \"input\": \"" + p.T("snippet_hello") + "\"}'"
	}
	c.Set(fiber.HeaderCacheControl, "public, max-age=60")
	return w.render(c, fiber.StatusOK, "model", "model_title", d, "", "")
}
