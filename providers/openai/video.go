package openai

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// The OpenAI videos API (/v1/videos, Sora's, and other gateways' that copy
// it): a multipart create answered with the video object, GET of the object
// to poll (openai-poll-after-ms hints the pause), GET …/content for the file.

var _ shlyuz.VideoProvider = (*Provider)(nil)

// wireVideo is the part of OpenAI's video object the adapter reads.
type wireVideo struct {
	ID       string          `json:"id"`
	Status   string          `json:"status"`
	Progress int             `json:"progress"`
	Seconds  json.RawMessage `json:"seconds"`
	Error    *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// videoBody is the multipart create request and its content type.
func videoBody(req *shlyuz.VideoRequest) ([]byte, string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	_ = w.WriteField("model", req.Model)
	_ = w.WriteField("prompt", req.Prompt)
	_ = w.WriteField("seconds", strconv.Itoa(req.Seconds))
	if req.Size != "" {
		_ = w.WriteField("size", req.Size)
	}
	if len(req.InputReference) > 0 {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="input_reference"; filename="reference"`)
		h.Set("Content-Type", req.InputMIME)
		if part, err := w.CreatePart(h); err == nil {
			_, _ = part.Write(req.InputReference)
		}
	}
	_ = w.Close()
	return b.Bytes(), w.FormDataContentType()
}

// SubmitVideo creates the job; the job id is sent as its Idempotency-Key.
func (p *Provider) SubmitVideo(ctx context.Context, req *shlyuz.VideoRequest) (shlyuz.VideoStatus, error) {
	body, ctype := videoBody(req)
	h := p.header.Clone()
	h.Set("Content-Type", ctype)
	h.Set("Idempotency-Key", req.JobID)
	return p.videoCall(ctx, http.MethodPost, p.videoURL(""), h, body)
}

// PollVideo reads the job's video object.
func (p *Provider) PollVideo(ctx context.Context, id string) (shlyuz.VideoStatus, error) {
	return p.videoCall(ctx, http.MethodGet, p.videoURL(id), p.header, nil)
}

// FetchVideo opens the finished file.
func (p *Provider) FetchVideo(ctx context.Context, st shlyuz.VideoStatus) (io.ReadCloser, error) {
	resp, err := p.send(ctx, http.MethodGet, p.videoURL(st.UpstreamID)+"/content", p.header, nil)
	if err != nil {
		return nil, err
	}
	return resp.Body, nil
}

// IdempotentSubmit: the create carries an Idempotency-Key.
func (p *Provider) IdempotentSubmit() bool { return true }

func (p *Provider) videoURL(id string) string {
	u := strings.TrimRight(p.cfg.BaseURL, "/") + "/videos"
	if id != "" {
		u += "/" + url.PathEscape(id)
	}
	return u
}

// send sends one request (of the videos or images API) and returns a 2xx
// response; other statuses and transport failures are *shlyuz.Error values.
func (p *Provider) send(ctx context.Context, method, u string, h http.Header, body []byte) (*http.Response, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return nil, shlyuz.ErrInternal(err)
	}
	req.Header = h.Clone()
	if body == nil {
		req.Header.Del("Content-Type")
	}
	resp, err := p.client.Do(req)
	if err != nil {
		return nil, errs.Call(p.cfg.Name, ctx, nil, err, false)
	}
	if resp.StatusCode/100 != 2 {
		defer resp.Body.Close()
		return nil, statusError(p.cfg.Name, resp.StatusCode, resp.Header, upstream.ReadErrorBody(resp.Body), p.now())
	}
	return resp, nil
}

func (p *Provider) videoCall(ctx context.Context, method, u string, h http.Header, body []byte) (shlyuz.VideoStatus, error) {
	resp, err := p.send(ctx, method, u, h, body)
	if err != nil {
		return shlyuz.VideoStatus{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return shlyuz.VideoStatus{}, errs.Call(p.cfg.Name, ctx, nil, err, true)
	}
	st, err := decodeVideo(data)
	if err != nil {
		return st, err
	}
	if ms, err := strconv.ParseInt(resp.Header.Get("Openai-Poll-After-Ms"), 10, 64); err == nil && ms > 0 {
		st.PollAfter = time.Duration(ms) * time.Millisecond
	}
	return st, nil
}

// decodeVideo maps OpenAI's video object to a status.
func decodeVideo(data []byte) (shlyuz.VideoStatus, error) {
	var w wireVideo
	if err := json.Unmarshal(data, &w); err != nil || w.ID == "" {
		return shlyuz.VideoStatus{}, upstream.Malformed("the reply is not a video object")
	}
	st := shlyuz.VideoStatus{UpstreamID: w.ID, Progress: w.Progress}
	if s, err := strconv.ParseFloat(strings.Trim(string(w.Seconds), `"`), 64); err == nil {
		st.Seconds = s
	}
	switch w.Status {
	case "queued", "pending":
		st.State = shlyuz.VideoQueued
	case "in_progress":
		st.State = shlyuz.VideoInProgress
	case "completed":
		st.State = shlyuz.VideoCompleted
	case "failed", "cancelled", "expired":
		st.State = shlyuz.VideoFailed
		st.Error = &shlyuz.VideoError{Code: "upstream_error", Message: "The upstream failed the job."}
		if w.Error != nil {
			st.Error.Message = fmt.Sprintf("The upstream failed the job: %s", upstream.Clip(w.Error.Message))
			if w.Error.Code == "content_filter" || w.Error.Code == "moderation_blocked" {
				st.Error.Code = "content_filter"
			}
		}
	default:
		return st, upstream.Malformed(fmt.Sprintf("unknown video status %q", upstream.Clip(w.Status)))
	}
	return st, nil
}
