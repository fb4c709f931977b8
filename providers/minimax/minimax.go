// Package minimax is the adapter for MiniMax's (Hailuo) video API: POST
// /v1/video_generation answers a task_id; GET /v1/query/video_generation
// polls it (Preparing, Queueing, Processing, Success with a file_id, Fail);
// GET /v1/files/retrieve turns the file_id into a time-limited download URL.
// Errors come as base_resp.status_code, often inside HTTP 200. It serves no chat.
package minimax

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
	"github.com/shlyuz/shlyuz/providers/internal/videojob"
)

// DefaultBaseURL is MiniMax's international endpoint.
const DefaultBaseURL = "https://api.minimax.io"

// Provider is one MiniMax upstream.
type Provider struct {
	videojob.NoChat
	cfg    shlyuz.UpstreamConfig
	base   string
	client *videojob.Client
}

var _ shlyuz.VideoProvider = (*Provider)(nil)

// New makes the adapter.
func New(cfg shlyuz.UpstreamConfig) (*Provider, error) {
	cfg = cfg.WithDefaults()
	auth := ""
	if cfg.APIKey != "" {
		auth = "Bearer " + cfg.APIKey
	}
	base, client, err := videojob.Open(cfg, DefaultBaseURL, auth)
	if err != nil {
		return nil, fmt.Errorf("minimax: %w", err)
	}
	return &Provider{NoChat: videojob.NoChat{Name: cfg.Name}, cfg: cfg, base: base, client: client}, nil
}

type baseResp struct {
	StatusCode int    `json:"status_code"`
	StatusMsg  string `json:"status_msg"`
}

type createBody struct {
	Model           string `json:"model"`
	Prompt          string `json:"prompt"`
	Duration        int    `json:"duration"`
	Resolution      string `json:"resolution,omitempty"`
	FirstFrameImage string `json:"first_frame_image,omitempty"`
}

type reply struct {
	TaskID   string   `json:"task_id"`
	Status   string   `json:"status"`
	FileID   string   `json:"file_id"`
	BaseResp baseResp `json:"base_resp"`
	File     *struct {
		DownloadURL string `json:"download_url"`
	} `json:"file"`
}

// respError maps base_resp.status_code: 1002 rate limit, 1004 and 2049
// credentials, 1008 the upstream's balance, 1026 sensitive content, 2013
// invalid parameters.
func respError(name string, b baseResp) *shlyuz.Error {
	msg := upstream.Clip(b.StatusMsg)
	var e *shlyuz.Error
	switch b.StatusCode {
	case 1002:
		e = shlyuz.ErrRateLimited(5*time.Second, "The upstream %q is rate limiting requests (1002).", name)
	case 1004, 2049:
		e = shlyuz.ErrUpstream("The upstream %q refused the gateway's credentials (%d).", name, b.StatusCode)
	case 1008:
		e = shlyuz.ErrUpstream("The upstream %q's account is out of balance (1008).", name)
	case 1026:
		e = shlyuz.ErrInvalidValue("prompt", "The upstream %q refused the prompt as sensitive content (1026): %s", name, msg)
		e.Code = "content_policy"
		return e
	case 2013:
		e = shlyuz.ErrInvalidValue("", "The upstream %q rejected the parameters (2013): %s", name, msg)
		e.Param = nil
		return e
	default:
		e = shlyuz.ErrUpstream("The upstream %q failed (%d): %s", name, b.StatusCode, msg)
	}
	e.UpstreamFault = true
	return e
}

func (p *Provider) call(ctx context.Context, method, u string, body any) (reply, error) {
	var r reply
	if _, err := p.client.JSON(ctx, method, u, nil, body, &r); err != nil {
		return r, err
	}
	if r.BaseResp.StatusCode != 0 {
		return r, respError(p.cfg.Name, r.BaseResp)
	}
	return r, nil
}

// SubmitVideo creates the task.
func (p *Provider) SubmitVideo(ctx context.Context, req *shlyuz.VideoRequest) (shlyuz.VideoStatus, error) {
	b := createBody{Model: req.Model, Prompt: req.Prompt, Duration: req.Seconds, Resolution: strings.ToUpper(req.Resolution)}
	if len(req.InputReference) > 0 {
		b.FirstFrameImage = "data:" + req.InputMIME + ";base64," + base64.StdEncoding.EncodeToString(req.InputReference)
	}
	r, err := p.call(ctx, http.MethodPost, p.base+"/v1/video_generation", b)
	if err != nil {
		return shlyuz.VideoStatus{}, err
	}
	if r.TaskID == "" {
		return shlyuz.VideoStatus{}, upstream.Malformed("the reply has no task_id")
	}
	return shlyuz.VideoStatus{UpstreamID: r.TaskID, State: shlyuz.VideoQueued}, nil
}

// PollVideo queries the task; a finished one's URL is its file_id.
func (p *Provider) PollVideo(ctx context.Context, id string) (shlyuz.VideoStatus, error) {
	r, err := p.call(ctx, http.MethodGet, p.base+"/v1/query/video_generation?task_id="+url.QueryEscape(id), nil)
	if err != nil {
		if se := shlyuz.AsError(err); se.Code == "content_policy" {
			f := videojob.Failed(true, "%s", se.Message)
			f.UpstreamID = id
			return f, nil
		}
		return shlyuz.VideoStatus{}, err
	}
	st := shlyuz.VideoStatus{UpstreamID: id}
	switch r.Status {
	case "Preparing", "Queueing", "queued":
		st.State = shlyuz.VideoQueued
	case "Processing", "running":
		st.State = shlyuz.VideoInProgress
	case "Success", "succeeded":
		if r.FileID == "" {
			return videojob.Failed(false, "The upstream finished with no file."), nil
		}
		st.State, st.URL = shlyuz.VideoCompleted, r.FileID
	case "Fail", "failed", "cancelled":
		f := videojob.Failed(false, "The upstream failed the job.")
		f.UpstreamID = id
		return f, nil
	default:
		return st, upstream.Malformed(fmt.Sprintf("unknown status %q", upstream.Clip(r.Status)))
	}
	return st, nil
}

// FetchVideo asks for the file's download URL (fresh each time: they
// expire) and downloads it.
func (p *Provider) FetchVideo(ctx context.Context, st shlyuz.VideoStatus) (io.ReadCloser, error) {
	r, err := p.call(ctx, http.MethodGet, p.base+"/v1/files/retrieve?file_id="+url.QueryEscape(st.URL), nil)
	if err != nil {
		return nil, err
	}
	if r.File == nil || r.File.DownloadURL == "" {
		return nil, upstream.Malformed("the file has no download_url")
	}
	c := *p.client
	c.Header = http.Header{"User-Agent": {"shlyuz"}}
	return c.Fetch(ctx, r.File.DownloadURL, nil)
}

// IdempotentSubmit: the create has no idempotency key.
func (p *Provider) IdempotentSubmit() bool { return false }
