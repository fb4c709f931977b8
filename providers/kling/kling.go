// Package kling is the adapter for Kling's (Kuaishou) video API: a JWT the
// gateway mints from the access and secret keys (HS256, iss = access key,
// exp = now+30 min, nbf = now−5 s) on every call; POST /v1/videos/text2video
// (or image2video with a first frame); GET …/{task_id} to poll; errors are a
// non-zero "code", even inside HTTP 200. It serves no chat.
package kling

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
	"github.com/shlyuz/shlyuz/providers/internal/videojob"
)

// DefaultBaseURL is Kling's international endpoint.
const DefaultBaseURL = "https://api-singapore.klingai.com"

// Provider is one Kling upstream.
type Provider struct {
	videojob.NoChat
	cfg            shlyuz.UpstreamConfig
	base           string
	access, secret string
	client         *videojob.Client
}

var _ shlyuz.VideoProvider = (*Provider)(nil)

// New makes the adapter; the key (api_key_env) is "<access key>:<secret key>".
func New(cfg shlyuz.UpstreamConfig) (*Provider, error) {
	cfg = cfg.WithDefaults()
	access, secret, ok := strings.Cut(cfg.APIKey, ":")
	if !ok || access == "" || secret == "" {
		return nil, fmt.Errorf("kling: upstream %q: the key must be \"<access key>:<secret key>\"", cfg.Name)
	}
	base, client, err := videojob.Open(cfg, DefaultBaseURL, "")
	if err != nil {
		return nil, fmt.Errorf("kling: %w", err)
	}
	return &Provider{NoChat: videojob.NoChat{Name: cfg.Name}, cfg: cfg, base: base, access: access, secret: secret, client: client}, nil
}

// Token is the JWT Kling wants in Authorization: Bearer.
func Token(access, secret string, now time.Time) string {
	enc := base64.RawURLEncoding
	head := enc.EncodeToString([]byte(`{"alg":"HS256","typ":"JWT"}`))
	claims, _ := json.Marshal(map[string]any{"iss": access, "exp": now.Add(30 * time.Minute).Unix(), "nbf": now.Add(-5 * time.Second).Unix()})
	msg := head + "." + enc.EncodeToString(claims)
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(msg))
	return msg + "." + enc.EncodeToString(mac.Sum(nil))
}

func (p *Provider) auth() http.Header {
	return http.Header{"Authorization": {"Bearer " + Token(p.access, p.secret, p.client.Now())}}
}

type createBody struct {
	ModelName      string `json:"model_name"`
	Prompt         string `json:"prompt"`
	Duration       string `json:"duration"`
	Mode           string `json:"mode"`
	AspectRatio    string `json:"aspect_ratio,omitempty"`
	Sound          string `json:"sound,omitempty"`
	Image          string `json:"image,omitempty"`
	ExternalTaskID string `json:"external_task_id"`
}

type reply struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    struct {
		TaskID        string `json:"task_id"`
		TaskStatus    string `json:"task_status"`
		TaskStatusMsg string `json:"task_status_msg"`
		TaskResult    struct {
			Videos []struct {
				URL      string `json:"url"`
				Duration string `json:"duration"`
			} `json:"videos"`
		} `json:"task_result"`
	} `json:"data"`
}

// codeError maps a non-zero code: 1100–1199 account and auth, 1200–1299
// bad parameters, 1300–1399 policy (1301: content), 1400+ rate and server.
func codeError(name string, r reply) *shlyuz.Error {
	msg := upstream.Clip(r.Message)
	var e *shlyuz.Error
	switch {
	case r.Code >= 1200 && r.Code < 1300:
		e = shlyuz.ErrInvalidValue("", "The upstream %q rejected the request (code %d): %s", name, r.Code, msg)
		e.Param = nil
	case r.Code == 1301:
		e = shlyuz.ErrInvalidValue("prompt", "The upstream %q refused the prompt on content grounds (code 1301): %s", name, msg)
		e.Code = "content_policy"
	case r.Code == 1302 || r.Code == 1303:
		e = shlyuz.ErrRateLimited(5*time.Second, "The upstream %q is rate limiting requests (code %d).", name, r.Code)
	default:
		e = shlyuz.ErrUpstream("The upstream %q failed (code %d): %s", name, r.Code, msg)
	}
	e.UpstreamFault = r.Code < 1200 || r.Code >= 1300
	return e
}

// kind is the endpoint of a job: text2video, or image2video with a first frame.
func kind(req *shlyuz.VideoRequest) string {
	if len(req.InputReference) > 0 {
		return "image2video"
	}
	return "text2video"
}

// SubmitVideo creates the task; its upstream id is "<kind>/<task_id>".
func (p *Provider) SubmitVideo(ctx context.Context, req *shlyuz.VideoRequest) (shlyuz.VideoStatus, error) {
	b := createBody{ModelName: req.Model, Prompt: req.Prompt, Duration: strconv.Itoa(req.Seconds), Mode: "std",
		AspectRatio: req.AspectRatio, ExternalTaskID: req.JobID}
	if b.AspectRatio == "" {
		b.AspectRatio = videojob.AspectRatio(req.Size)
	}
	if req.GenerateAudio != nil {
		b.Sound = map[bool]string{true: "on", false: "off"}[*req.GenerateAudio]
	}
	if len(req.InputReference) > 0 {
		b.Image = base64.StdEncoding.EncodeToString(req.InputReference)
	}
	k := kind(req)
	st, err := p.call(ctx, http.MethodPost, p.base+"/v1/videos/"+k, b)
	if err == nil {
		st.UpstreamID = k + "/" + st.UpstreamID
	}
	return st, err
}

// PollVideo reads the task.
func (p *Provider) PollVideo(ctx context.Context, id string) (shlyuz.VideoStatus, error) {
	k, task, ok := strings.Cut(id, "/")
	if !ok {
		return shlyuz.VideoStatus{}, shlyuz.ErrInvalidValue("", "Not a Kling task id: %q.", id)
	}
	st, err := p.call(ctx, http.MethodGet, p.base+"/v1/videos/"+k+"/"+task, nil)
	st.UpstreamID = id
	return st, err
}

// FetchVideo downloads the result (a time-limited URL, no credentials).
func (p *Provider) FetchVideo(ctx context.Context, st shlyuz.VideoStatus) (io.ReadCloser, error) {
	c := *p.client
	c.Header = http.Header{"User-Agent": {"shlyuz"}}
	return c.Fetch(ctx, st.URL, nil)
}

// IdempotentSubmit: a repeated external_task_id is refused, not joined.
func (p *Provider) IdempotentSubmit() bool { return false }

func (p *Provider) call(ctx context.Context, method, url string, body any) (shlyuz.VideoStatus, error) {
	var r reply
	if _, err := p.client.JSON(ctx, method, url, p.auth(), body, &r); err != nil {
		return shlyuz.VideoStatus{}, err
	}
	if r.Code != 0 {
		return shlyuz.VideoStatus{}, codeError(p.cfg.Name, r)
	}
	return status(r)
}

func status(r reply) (shlyuz.VideoStatus, error) {
	d := r.Data
	if d.TaskID == "" {
		return shlyuz.VideoStatus{}, upstream.Malformed("the reply has no task_id")
	}
	st := shlyuz.VideoStatus{UpstreamID: d.TaskID}
	switch d.TaskStatus {
	case "submitted":
		st.State = shlyuz.VideoQueued
	case "processing":
		st.State = shlyuz.VideoInProgress
	case "succeed":
		if len(d.TaskResult.Videos) == 0 {
			return videojob.Failed(false, "The upstream finished with no video."), nil
		}
		v := d.TaskResult.Videos[0]
		st.State, st.URL = shlyuz.VideoCompleted, v.URL
		st.Seconds, _ = strconv.ParseFloat(v.Duration, 64)
	case "failed":
		msg := d.TaskStatusMsg
		f := videojob.Failed(strings.Contains(strings.ToLower(msg), "risk") || strings.Contains(strings.ToLower(msg), "moderat"), "The upstream failed the job: %s", msg)
		f.UpstreamID = d.TaskID
		return f, nil
	default:
		return st, upstream.Malformed(fmt.Sprintf("unknown task_status %q", upstream.Clip(d.TaskStatus)))
	}
	return st, nil
}
