package openrouter

import (
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/http/internal/api"
	"github.com/shlyuz/shlyuz/http/media"
)

// The catalog endpoints in OpenRouter's shapes: /models (paged), /models/count,
// /models/user, /model/{author}/{slug}, /models/{author}/{slug}/endpoints and
// /providers.

// maxModelsPage is the most records one page of /models holds (OpenRouter's).
const maxModelsPage = 1000

// catalogRoutes registers the catalog routes on /api/v1; the fixed paths go
// before /models/*, which reads the rest as a model id.
func (s *server) catalogRoutes(v1 fiber.Router) {
	v1.Get("/models", s.Authenticated, s.listModels)
	v1.Get("/models/count", s.Authenticated, s.countModels)
	v1.Get("/models/user", s.Authenticated, s.userModels)
	v1.Get("/models/:author/:slug/endpoints", s.Authenticated, s.modelEndpoints)
	v1.Get("/models/*", s.Authenticated, s.getModel)
	v1.Get("/model/:author/:slug", s.Authenticated, s.modelBySlug)
	v1.Get("/providers", s.Authenticated, s.providers)
}

// served is the models this gateway routes whose output modality is one of
// output_modalities (comma-separated; text by default, or all); a value no
// model of the catalog outputs is a 400.
func (s *server) served(c *fiber.Ctx) ([]*shlyuz.PricedModel, error) {
	list := s.Gw.Catalog().List()
	wants := strings.Split(c.Query("output_modalities", "text"), ",")
	for i, w := range wants {
		wants[i] = strings.TrimSpace(w)
		if !slices.ContainsFunc(list, func(m *shlyuz.PricedModel) bool { return media.ListsModel(m, wants[i]) }) {
			return nil, shlyuz.ErrInvalidValue("output_modalities", "Unknown output modality %q: use all, or one the models output (text, image, …).", wants[i])
		}
	}
	var params []string
	if sp := c.Query("supported_parameters"); sp != "" {
		params = strings.Split(sp, ",")
	}
	var key *shlyuz.Key // on /models/user: the models its allowed_models allow
	if c.Locals(localUserModels) != nil {
		key = &api.KeyStatus(c).Key
	}
	out := make([]*shlyuz.PricedModel, 0, 64)
	for _, m := range list {
		if !slices.ContainsFunc(wants, func(w string) bool { return media.ListsModel(m, w) }) || !s.Gw.Routable(m.ID) {
			continue
		}
		if key != nil && !key.Allows(m.ID) {
			continue
		}
		if len(params) > 0 && !containsAll(s.parametersOf(m), params) {
			continue
		}
		out = append(out, m)
	}
	return out, nil
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !slices.Contains(have, strings.TrimSpace(w)) {
			return false
		}
	}
	return true
}

// parametersOf is what a request of the model may carry through its first upstream.
func (s *server) parametersOf(m *shlyuz.PricedModel) []string {
	ups := s.Gw.RouteUpstreams(m.ID)
	if len(ups) == 0 {
		return []string{}
	}
	return parametersOf(m, ups[0].Protocol)
}

// listModels is GET /api/v1/models (and /models/user: every model a key of
// this gateway may call) in OpenAI's list shape and OpenRouter's: the models
// this gateway routes (the public /api/models lists the whole catalog). The
// whole list, or a page when offset or limit is given (limit 500 by default,
// at most 1000).
func (s *server) listModels(c *fiber.Ctx) error {
	list, err := s.served(c)
	if err != nil {
		return err
	}
	total := len(list)
	var next *string
	if c.Query("offset") != "" || c.Query("limit") != "" {
		offset, err := queryInt(c, "offset", 0, 0, 1<<62)
		if err != nil {
			return err
		}
		limit, err := queryInt(c, "limit", 500, 1, maxModelsPage)
		if err != nil {
			return err
		}
		start := min(offset, int64(total)) // bounded before any sum: no overflow
		end := min(start+limit, int64(total))
		list = list[start:end]
		if end < int64(total) {
			q := url.Values{"offset": {strconv.FormatInt(end, 10)}, "limit": {strconv.FormatInt(limit, 10)}}
			if om := c.Query("output_modalities"); om != "" {
				q.Set("output_modalities", om)
			}
			n := "/api/v1/models?" + q.Encode()
			next = &n
		}
	}
	p := s.Gw.Catalog().Pricing
	out := make([]v1Model, len(list))
	for i, m := range list {
		out[i] = toV1Model(m, p, s.parametersOf(m), s.Gw.WebSearchFee())
	}
	return c.JSON(fiber.Map{"object": "list", "data": out, "total_count": total, "links": fiber.Map{"next": next}})
}

// localUserModels marks a /models/user request: the list is narrowed to the
// models the key's allowed_models allow.
const localUserModels = "models_user"

// userModels is GET /api/v1/models/user: /models narrowed to what the key may call.
func (s *server) userModels(c *fiber.Ctx) error {
	c.Locals(localUserModels, true)
	return s.listModels(c)
}

// queryInt reads a whole-number query parameter within [lo, hi]; def when absent.
func queryInt(c *fiber.Ctx, name string, def, lo, hi int64) (int64, error) {
	v := c.Query(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo || n > hi {
		return 0, shlyuz.ErrInvalidValue(name, "%s must be a whole number from %d to %d.", name, lo, hi)
	}
	return n, nil
}

// countModels is GET /api/v1/models/count.
func (s *server) countModels(c *fiber.Ctx) error {
	list, err := s.served(c)
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"data": fiber.Map{"count": len(list)}})
}

// routedModel is the model of an id, or the 404 of an unknown one and the
// error of one no upstream serves.
func (s *server) routedModel(id string) (*shlyuz.PricedModel, error) {
	m, err := s.Gw.Catalog().Lookup(id)
	if err != nil {
		return nil, err
	}
	if !s.Gw.Routable(id) {
		return nil, shlyuz.ErrModelUnavailable(id)
	}
	return m, nil
}

// getModel is GET /api/v1/models/{id} (OpenAI's retrieve): the record itself.
func (s *server) getModel(c *fiber.Ctx) error {
	id := strings.TrimPrefix(c.Params("*"), "/")
	if u, err := url.PathUnescape(id); err == nil { // the SDKs escape the slash of "openai/gpt-4o"
		id = u
	}
	m, err := s.routedModel(id)
	if err != nil {
		return err
	}
	return c.JSON(toV1Model(m, s.Gw.Catalog().Pricing, s.parametersOf(m), s.Gw.WebSearchFee()))
}

// slugID is the model id of the :author and :slug parameters.
func slugID(c *fiber.Ctx) string {
	id := c.Params("author") + "/" + c.Params("slug")
	if u, err := url.PathUnescape(id); err == nil {
		return u
	}
	return id
}

// modelBySlug is GET /api/v1/model/{author}/{slug} (OpenRouter's): {data: record}.
func (s *server) modelBySlug(c *fiber.Ctx) error {
	m, err := s.routedModel(slugID(c))
	if err != nil {
		return err
	}
	return c.JSON(fiber.Map{"data": toV1Model(m, s.Gw.Catalog().Pricing, s.parametersOf(m), s.Gw.WebSearchFee())})
}

// endpoint is one upstream that serves a model, in OpenRouter's
// PublicEndpoint shape: its price (the catalog's times the upstream's
// multiplier) and limits. Figures the gateway does not measure (uptime,
// latency, throughput) are null.
type endpoint struct {
	Name                    string            `json:"name"`
	ModelID                 string            `json:"model_id"`
	ModelName               string            `json:"model_name"`
	ContextLength           int64             `json:"context_length"` // 0 when unknown
	Pricing                 v1Pricing         `json:"pricing"`
	ProviderName            string            `json:"provider_name"`
	Tag                     string            `json:"tag"`
	Quantization            *string           `json:"quantization"`
	MaxCompletionTokens     *int64            `json:"max_completion_tokens"`
	MaxPromptTokens         *int64            `json:"max_prompt_tokens"`
	SupportedParameters     []string          `json:"supported_parameters"`
	Status                  int               `json:"status"` // 0: serving
	UptimeLast30m           *float64          `json:"uptime_last_30m"`
	UptimeLast5m            *float64          `json:"uptime_last_5m"`
	UptimeLast1d            *float64          `json:"uptime_last_1d"`
	LatencyLast30m          *struct{}         `json:"latency_last_30m"`
	ThroughputLast30m       *struct{}         `json:"throughput_last_30m"`
	SupportsImplicitCaching bool              `json:"supports_implicit_caching"`
	SupportsToolChoice      toolChoiceSupport `json:"supports_tool_choice"`
}

type toolChoiceSupport struct {
	Auto     bool `json:"auto"`
	None     bool `json:"none"`
	Required bool `json:"required"`
	Function bool `json:"function"`
}

// modelEndpoints is GET /api/v1/models/{author}/{slug}/endpoints.
func (s *server) modelEndpoints(c *fiber.Ctx) error {
	m, err := s.routedModel(slugID(c))
	if err != nil {
		return err
	}
	maxOut := m.MaxOutput()
	var maxPrompt *int64
	if m.ContextLength > 0 {
		maxPrompt = &m.ContextLength
	}
	eps := []endpoint{}
	for _, u := range s.Gw.RouteUpstreams(m.ID) {
		params := parametersOf(m, u.Protocol)
		tools := slices.Contains(params, "tool_choice")
		eps = append(eps, endpoint{
			Name: u.Name + " | " + m.ID, ModelID: m.ID, ModelName: m.Name, ContextLength: m.ContextLength,
			Pricing: pricingOf(m.Price.Scale(u.PriceMultiplier), chatSearchFee(m, s.Gw.WebSearchFee())), ProviderName: u.Name, Tag: u.Name,
			MaxCompletionTokens: &maxOut, MaxPromptTokens: maxPrompt, SupportedParameters: params,
			SupportsToolChoice: toolChoiceSupport{Auto: tools, None: tools, Required: tools, Function: tools},
		})
	}
	v := toV1Model(m, s.Gw.Catalog().Pricing, s.parametersOf(m), s.Gw.WebSearchFee())
	arch := fiber.Map{"modality": v.Architecture.Modality, "input_modalities": v.Architecture.InputModalities,
		"output_modalities": v.Architecture.OutputModalities, "tokenizer": v.Architecture.Tokenizer, "instruct_type": nil}
	return c.JSON(fiber.Map{"data": fiber.Map{"id": m.ID, "name": m.Name, "created": m.Created, "description": v.Description,
		"architecture": arch, "endpoints": eps}})
}

// providers is GET /api/v1/providers: the upstreams this gateway calls, by
// their configured names (what provider.order and provider.only take).
func (s *server) providers(c *fiber.Ctx) error {
	out := []fiber.Map{}
	for _, u := range s.Gw.UpstreamConfigs() {
		out = append(out, fiber.Map{"name": u.Name, "slug": u.Name, "privacy_policy_url": nil,
			"terms_of_service_url": nil, "status_page_url": nil})
	}
	return c.JSON(fiber.Map{"data": out})
}
