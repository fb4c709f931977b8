// Package bfl is the adapter for Black Forest Labs' FLUX image API: POST
// /v1/<model> answers a task id, its polling_url and its cost in credits
// ($0.01 each); the polling_url answers Pending, then Ready with a signed
// sample URL that expires in about ten minutes (fetched at once), or Request
// Moderated / Content Moderated (not charged), Error, Task not found. One
// image a task; the key goes in x-key, to the configured host and BFL's own
// (a polling_url anywhere else is fetched guarded, without it). It serves no
// chat.
package bfl

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
	"github.com/shlyuz/shlyuz/providers/internal/videojob"
)

// DefaultBaseURL is BFL's global endpoint.
const DefaultBaseURL = "https://api.bfl.ai"

// The pause between polls of a task: doubling from pollFirst to pollMax.
const (
	pollFirst = 250 * time.Millisecond
	pollMax   = 2 * time.Second
)

// maxImage bounds a fetched sample.
const maxImage = 64 << 20

// Provider is one BFL upstream.
type Provider struct {
	videojob.NoChat
	cfg    shlyuz.UpstreamConfig
	base   string
	client *videojob.Client
}

var _ shlyuz.ImageProvider = (*Provider)(nil)

// New makes the adapter; the API key is sent as x-key.
func New(cfg shlyuz.UpstreamConfig) (*Provider, error) {
	cfg = cfg.WithDefaults()
	if cfg.APIKey == "" {
		return nil, fmt.Errorf("bfl upstream %q: no API key (set api_key_env)", cfg.Name)
	}
	headers := map[string]string{"x-key": cfg.APIKey}
	for k, v := range cfg.Headers {
		headers[k] = v
	}
	withKey := cfg
	withKey.Headers = headers
	base, client, err := videojob.Open(withKey, DefaultBaseURL, "")
	if err != nil {
		return nil, fmt.Errorf("bfl: %w", err)
	}
	return &Provider{NoChat: videojob.NoChat{Name: cfg.Name}, cfg: cfg, base: base, client: client}, nil
}

type createBody struct {
	Prompt       string `json:"prompt"`
	Width        int    `json:"width,omitempty"`
	Height       int    `json:"height,omitempty"`
	AspectRatio  string `json:"aspect_ratio,omitempty"`
	OutputFormat string `json:"output_format,omitempty"` // jpeg or png
}

type created struct {
	ID         string      `json:"id"`
	PollingURL string      `json:"polling_url"`
	Cost       json.Number `json:"cost"` // credits of $0.01, read exactly (never as a float)
}

type result struct {
	Status string `json:"status"`
	Result *struct {
		Sample string `json:"sample"`
	} `json:"result"`
}

// body is the create request for req.
func body(req *shlyuz.ImageRequest) createBody {
	b := createBody{Prompt: req.Prompt}
	if ws, hs, ok := strings.Cut(req.Size, "x"); ok {
		b.Width, _ = strconv.Atoi(ws)
		b.Height, _ = strconv.Atoi(hs)
	}
	if req.AspectRatio != "" && b.Width == 0 {
		b.AspectRatio = req.AspectRatio
	}
	if req.OutputFormat == "jpeg" || req.OutputFormat == "png" {
		b.OutputFormat = req.OutputFormat
	}
	return b
}

// GenerateImages makes req.N images, one task each, one after another; the
// cost BFL reported is the call's price.
func (p *Provider) GenerateImages(ctx context.Context, req *shlyuz.ImageRequest) (*shlyuz.ImageResult, error) {
	out := &shlyuz.ImageResult{}
	credits, reported := shlyuz.Decimal{}, true
	for range max(1, req.N) {
		img, cost, err := p.generate(ctx, req)
		if err != nil {
			if len(out.Images) > 0 { // bill what was made; the rest failed
				break
			}
			return nil, err
		}
		out.Images = append(out.Images, img)
		if c, perr := shlyuz.ParseDecimal(cost.String()); perr == nil && cost != "" && c.Sign() >= 0 {
			credits = credits.Add(c)
		} else {
			reported = false
		}
	}
	if reported {
		usd := credits.Quo(100)
		out.Usage = &shlyuz.ImageUsage{CostUSD: &usd}
	}
	return out, nil
}

func (p *Provider) generate(ctx context.Context, req *shlyuz.ImageRequest) (shlyuz.GeneratedImage, json.Number, error) {
	var task created
	if _, err := p.client.JSON(ctx, http.MethodPost, p.base+"/v1/"+url.PathEscape(req.Model), nil, body(req), &task); err != nil {
		return shlyuz.GeneratedImage{}, "", err
	}
	if task.PollingURL == "" {
		task.PollingURL = p.base + "/v1/get_result?id=" + url.QueryEscape(task.ID)
	}
	poller := p.poller(task.PollingURL)
	for pause := pollFirst; ; pause = min(2*pause, pollMax) {
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
			t.Stop()
			return shlyuz.GeneratedImage{}, "", shlyuz.ErrUpstreamTimeout("The upstream %q did not finish the image in time.", p.cfg.Name)
		case <-t.C:
		}
		var r result
		if _, err := poller.JSON(ctx, http.MethodGet, task.PollingURL, nil, nil, &r); err != nil {
			return shlyuz.GeneratedImage{}, "", err
		}
		switch r.Status {
		case "Pending", "Processing", "Queued":
			continue
		case "Ready":
			if r.Result == nil || r.Result.Sample == "" {
				return shlyuz.GeneratedImage{}, "", upstream.Malformed("a ready task has no sample")
			}
			img, err := p.fetch(ctx, r.Result.Sample)
			return img, task.Cost, err
		case "Request Moderated", "Content Moderated":
			return shlyuz.GeneratedImage{}, "", shlyuz.ErrContentPolicy("The upstream's moderation refused the image (%s).", r.Status)
		default: // Error, Task not found, anything new
			return shlyuz.GeneratedImage{}, "", shlyuz.ErrUpstream("The upstream %q failed the image: %s.", p.cfg.Name, upstream.Clip(r.Status))
		}
	}
}

// poller is the client to fetch a task's polling_url u with: the upstream's
// own, with its headers, on the configured host; else the guarded one (every
// address judged by netguard when dialled), sending the key only to BFL's own
// hosts (the polling host varies by region) and nothing else of the
// configuration.
func (p *Provider) poller(u string) *videojob.Client {
	hc, same := upstream.ForURL(p.client.HTTP, p.base, u)
	if same {
		return p.client
	}
	c := *p.client
	c.HTTP, c.Header = hc, http.Header{"User-Agent": {"shlyuz"}}
	if bflHost(u) {
		c.Header.Set("x-key", p.cfg.APIKey)
	}
	return &c
}

// bflHost reports whether u is on one of BFL's API hosts over https:
// api.bfl.ai or a regional api.<region>.bfl.ai (api.eu.bfl.ai,
// api.us1.bfl.ai, the polling host api.eu2.bfl.ai).
func bflHost(u string) bool {
	p, err := url.Parse(u)
	if err != nil || p.Scheme != "https" || p.User != nil || (p.Port() != "" && p.Port() != "443") {
		return false
	}
	h := strings.ToLower(p.Hostname())
	if h == "api.bfl.ai" {
		return true
	}
	rest, ok := strings.CutPrefix(h, "api.")
	region, ok2 := strings.CutSuffix(rest, ".bfl.ai")
	return ok && ok2 && region != "" && strings.Trim(region, "abcdefghijklmnopqrstuvwxyz0123456789-") == ""
}

// fetch downloads a signed sample URL, without the API key (the URL carries
// its own signature).
func (p *Provider) fetch(ctx context.Context, u string) (shlyuz.GeneratedImage, error) {
	r, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return shlyuz.GeneratedImage{}, upstream.Malformed("the sample URL is not a URL")
	}
	hc, _ := upstream.ForURL(p.client.HTTP, p.base, u) // off the upstream's host: guarded
	resp, err := hc.Do(r)
	if err != nil {
		return shlyuz.GeneratedImage{}, shlyuz.ErrUpstream("The upstream %q's image could not be fetched: %v", p.cfg.Name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return shlyuz.GeneratedImage{}, shlyuz.ErrUpstream("The upstream %q's image URL answered HTTP %d (expired?).", p.cfg.Name, resp.StatusCode)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxImage))
	if err != nil {
		return shlyuz.GeneratedImage{}, shlyuz.ErrUpstream("The upstream %q's image broke off: %v", p.cfg.Name, err)
	}
	return shlyuz.GeneratedImage{Data: data, MediaType: http.DetectContentType(data)}, nil
}
