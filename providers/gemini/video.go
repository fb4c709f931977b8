package gemini

import (
	"context"
	"encoding/base64"
	"io"
	"net/http"
	"strings"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
	"github.com/shlyuz/shlyuz/providers/internal/videojob"
)

// Veo through the Gemini API: POST models/{m}:predictLongRunning answers an
// operation; GET {operation name} until done; the sample's uri is then
// downloaded with the API key (following the redirect).

var _ shlyuz.VideoProvider = (*Provider)(nil)

type veoRequest struct {
	Instances  []veoInstance `json:"instances"`
	Parameters veoParameters `json:"parameters"`
}

type veoInstance struct {
	Prompt string    `json:"prompt"`
	Image  *veoImage `json:"image,omitempty"`
}

type veoImage struct {
	BytesBase64Encoded string `json:"bytesBase64Encoded"`
	MimeType           string `json:"mimeType"`
}

type veoParameters struct {
	DurationSeconds int    `json:"durationSeconds"`
	AspectRatio     string `json:"aspectRatio,omitempty"`
	Resolution      string `json:"resolution,omitempty"`
	GenerateAudio   *bool  `json:"generateAudio,omitempty"`
	Seed            *int64 `json:"seed,omitempty"`
	SampleCount     int    `json:"sampleCount"`
}

type veoVideo struct {
	URI                string `json:"uri"`
	BytesBase64Encoded string `json:"bytesBase64Encoded"`
}

// veoOperation is a long-running operation; done operations carry the
// samples in any of the three shapes the Gemini API and Vertex have used.
type veoOperation struct {
	Name  string `json:"name"`
	Done  bool   `json:"done"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Response *struct {
		GenerateVideoResponse *struct {
			GeneratedSamples        []struct{ Video veoVideo } `json:"generatedSamples"`
			RaiMediaFilteredCount   int                        `json:"raiMediaFilteredCount"`
			RaiMediaFilteredReasons []string                   `json:"raiMediaFilteredReasons"`
		} `json:"generateVideoResponse"`
		GeneratedVideos []struct{ Video veoVideo } `json:"generatedVideos"`
		Videos          []veoVideo                 `json:"videos"`
	} `json:"response"`
}

func (p *Provider) videoClient() *videojob.Client {
	return &videojob.Client{Name: p.cfg.Name, HTTP: p.client, Header: p.header, Base: p.models, Now: p.now}
}

// apiRoot is the base URL up to and including the API version's slash.
func (p *Provider) apiRoot() string { return strings.TrimSuffix(p.models, "models/") }

// veoBody is the predictLongRunning request of a video job.
func veoBody(req *shlyuz.VideoRequest) veoRequest {
	in := veoInstance{Prompt: req.Prompt}
	if len(req.InputReference) > 0 {
		in.Image = &veoImage{BytesBase64Encoded: base64.StdEncoding.EncodeToString(req.InputReference), MimeType: req.InputMIME}
	}
	ar := req.AspectRatio
	if ar == "" {
		ar = videojob.AspectRatio(req.Size)
	}
	return veoRequest{Instances: []veoInstance{in}, Parameters: veoParameters{
		DurationSeconds: req.Seconds, AspectRatio: ar, Resolution: req.Resolution,
		GenerateAudio: req.GenerateAudio, Seed: req.Seed, SampleCount: 1}}
}

// SubmitVideo starts the operation.
func (p *Provider) SubmitVideo(ctx context.Context, req *shlyuz.VideoRequest) (shlyuz.VideoStatus, error) {
	var op veoOperation
	if _, err := p.videoClient().JSON(ctx, http.MethodPost, p.models+req.Model+":predictLongRunning", nil, veoBody(req), &op); err != nil {
		return shlyuz.VideoStatus{}, err
	}
	return veoStatus(op)
}

// PollVideo reads the operation.
func (p *Provider) PollVideo(ctx context.Context, name string) (shlyuz.VideoStatus, error) {
	var op veoOperation
	if _, err := p.videoClient().JSON(ctx, http.MethodGet, p.apiRoot()+name, nil, nil, &op); err != nil {
		return shlyuz.VideoStatus{}, err
	}
	return veoStatus(op)
}

// FetchVideo downloads the sample's file with the API key.
func (p *Provider) FetchVideo(ctx context.Context, st shlyuz.VideoStatus) (io.ReadCloser, error) {
	if b64, ok := strings.CutPrefix(st.URL, "data:video/mp4;base64,"); ok { // Vertex's inline bytes
		data, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			return nil, upstream.Malformed("the inline video is not base64")
		}
		return io.NopCloser(strings.NewReader(string(data))), nil
	}
	return p.videoClient().Fetch(ctx, st.URL, nil)
}

// IdempotentSubmit: predictLongRunning has no idempotency key.
func (p *Provider) IdempotentSubmit() bool { return false }

// veoStatus maps an operation: not done is in progress (Veo gives no
// percentage); done has a sample, an error, or RAI-filtered media.
func veoStatus(op veoOperation) (shlyuz.VideoStatus, error) {
	if op.Name == "" {
		return shlyuz.VideoStatus{}, upstream.Malformed("the reply is not an operation")
	}
	if !op.Done {
		return shlyuz.VideoStatus{UpstreamID: op.Name, State: shlyuz.VideoInProgress}, nil
	}
	if op.Error != nil {
		st := videojob.Failed(false, "The upstream failed the job: %s", op.Error.Message)
		st.UpstreamID = op.Name
		return st, nil
	}
	var v []veoVideo
	filtered := false
	if r := op.Response; r != nil {
		if g := r.GenerateVideoResponse; g != nil {
			for _, s := range g.GeneratedSamples {
				v = append(v, s.Video)
			}
			filtered = g.RaiMediaFilteredCount > 0
		}
		for _, s := range r.GeneratedVideos {
			v = append(v, s.Video)
		}
		v = append(v, r.Videos...)
	}
	if len(v) == 0 {
		st := videojob.Failed(filtered, "The upstream produced no video.")
		if filtered {
			st = videojob.Failed(true, "The upstream's safety filter removed the video.")
		}
		st.UpstreamID = op.Name
		return st, nil
	}
	st := shlyuz.VideoStatus{UpstreamID: op.Name, State: shlyuz.VideoCompleted, URL: v[0].URI}
	if st.URL == "" && v[0].BytesBase64Encoded != "" {
		st.URL = "data:video/mp4;base64," + v[0].BytesBase64Encoded
	}
	return st, nil
}
