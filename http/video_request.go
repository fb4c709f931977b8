package http

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
	"github.com/shlyuz/shlyuz/netguard"
)

// videoInput is POST /videos' body in both vocabularies: OpenAI's (seconds as
// a string, size, input_reference) and OpenRouter's (duration, resolution,
// aspect_ratio, frame_images, generate_audio, seed).
type videoInput struct {
	Model          string          `json:"model"`
	Prompt         string          `json:"prompt"`
	Seconds        json.RawMessage `json:"seconds"`
	Duration       json.RawMessage `json:"duration"`
	Size           string          `json:"size"`
	Resolution     string          `json:"resolution"`
	AspectRatio    string          `json:"aspect_ratio"`
	InputReference json.RawMessage `json:"input_reference"`
	FrameImages    []struct {
		ImageURL struct {
			URL string `json:"url"`
		} `json:"image_url"`
		FrameType string `json:"frame_type"`
	} `json:"frame_images"`
	GenerateAudio *bool  `json:"generate_audio"`
	Seed          *int64 `json:"seed"`
	CallbackURL   string `json:"callback_url"`
	Provider      *struct {
		Order          []string `json:"order"`
		AllowFallbacks *bool    `json:"allow_fallbacks"`
	} `json:"provider"`

	reference []byte // the input image, from a multipart file
}

// parseVideoInput reads a JSON or multipart body.
func parseVideoInput(c *fiber.Ctx) (*videoInput, *shlyuz.Error) {
	in := &videoInput{}
	ct := strings.ToLower(c.Get(fiber.HeaderContentType))
	if !strings.HasPrefix(ct, "multipart/form-data") {
		if err := json.Unmarshal(c.Body(), in); err != nil {
			return nil, shlyuz.ErrInvalidJSON(err.Error())
		}
		return in, nil
	}
	form, err := c.MultipartForm()
	if err != nil {
		return nil, shlyuz.ErrInvalidValue("body", "The multipart body cannot be read: %v.", err)
	}
	val := func(k string) string {
		if v := form.Value[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	in.Model, in.Prompt, in.Size, in.Resolution = val("model"), val("prompt"), val("size"), val("resolution")
	in.AspectRatio, in.CallbackURL = val("aspect_ratio"), val("callback_url")
	if v := val("seconds"); v != "" {
		in.Seconds = json.RawMessage(strconv.Quote(v))
	}
	if v := val("duration"); v != "" {
		in.Duration = json.RawMessage(strconv.Quote(v))
	}
	if v := val("input_reference"); v != "" {
		in.InputReference = json.RawMessage(strconv.Quote(v))
	}
	if fs := form.File["input_reference"]; len(fs) > 0 {
		data, err := readPart(fs[0])
		if err != nil {
			return nil, shlyuz.ErrInvalidValue("input_reference", "The input_reference file cannot be read: %v.", err)
		}
		in.reference = data
	}
	return in, nil
}

func readPart(fh *multipart.FileHeader) ([]byte, error) {
	f, err := fh.Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// intField reads a number given as a number or a string; absent is 0.
func intField(raw json.RawMessage, name string) (int, *shlyuz.Error) {
	if len(raw) == 0 || string(raw) == "null" {
		return 0, nil
	}
	s := strings.Trim(string(raw), `"`)
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, shlyuz.ErrInvalidValue(name, "%q must be a whole number of seconds, not %s.", name, raw)
	}
	return n, nil
}

// videoCall validates the input against the model and builds the call.
func (s *Server) videoCall(c *fiber.Ctx, in *videoInput, st *actors.KeyStatus) (*actors.VideoCall, *shlyuz.Error) {
	if in.Model == "" {
		return nil, shlyuz.ErrMissingField("model")
	}
	m, err := s.gw.Catalog().Lookup(in.Model)
	if err != nil {
		return nil, err
	}
	if m.Video == nil {
		return nil, shlyuz.ErrInvalidValue("model", "The model %q does not generate videos; GET /api/v1/videos/models lists those that do.", in.Model)
	}
	if strings.TrimSpace(in.Prompt) == "" {
		return nil, shlyuz.ErrMissingField("prompt")
	}
	spec := m.Video
	seconds, param := 0, "seconds"
	if n, e := intField(in.Seconds, "seconds"); e != nil {
		return nil, e
	} else if n > 0 {
		seconds = n
	} else if n, e := intField(in.Duration, "duration"); e != nil {
		return nil, e
	} else if n > 0 {
		seconds, param = n, "duration"
	}
	if seconds == 0 {
		seconds = spec.DefaultSeconds
	}
	if !slices.Contains(spec.Durations, seconds) {
		return nil, shlyuz.ErrInvalidValue(param, "The model %q makes videos of %s seconds, not %d.", m.ID, joinInts(spec.Durations), seconds)
	}
	size := in.Size
	if size == "" {
		size = spec.DefaultSize
	} else if !slices.Contains(spec.Sizes, size) {
		return nil, shlyuz.ErrInvalidValue("size", "The model %q makes videos of size %s, not %q.", m.ID, strings.Join(spec.Sizes, ", "), size)
	}
	if in.Resolution != "" && !slices.Contains(spec.Resolutions, in.Resolution) {
		return nil, shlyuz.ErrInvalidValue("resolution", "The model %q takes the resolutions %s, not %q.", m.ID, strings.Join(spec.Resolutions, ", "), in.Resolution)
	}
	if in.AspectRatio != "" && !slices.Contains(spec.AspectRatios, in.AspectRatio) {
		return nil, shlyuz.ErrInvalidValue("aspect_ratio", "The model %q takes the aspect ratios %s, not %q.", m.ID, strings.Join(spec.AspectRatios, ", "), in.AspectRatio)
	}
	ref, mimeType, e := videoReference(in)
	if e != nil {
		return nil, e
	}
	if in.CallbackURL != "" {
		if e := checkCallbackURL(in.CallbackURL); e != nil {
			return nil, e
		}
		if !s.gw.VideoCallbacks() {
			return nil, shlyuz.ErrInvalidValue("callback_url", "This gateway sends no callbacks (its operator set no video.callback_secret_env); poll GET /api/v1/videos/{id} instead.")
		}
	}
	vc := &actors.VideoCall{
		KeyHash: c.Locals(localKeyHash).(string), AccountID: st.Key.AccountID, KeyID: st.Key.ID, Model: m.ID,
		IdempotencyKey: c.Get("Idempotency-Key"), Size: size, CallbackURL: in.CallbackURL, AllowFallbacks: true,
		Request: shlyuz.VideoRequest{Prompt: in.Prompt, Seconds: seconds, Size: size, Resolution: in.Resolution,
			AspectRatio: in.AspectRatio, InputReference: ref, InputMIME: mimeType, GenerateAudio: in.GenerateAudio, Seed: in.Seed},
	}
	if p := in.Provider; p != nil {
		vc.Order = p.Order
		if p.AllowFallbacks != nil {
			vc.AllowFallbacks = *p.AllowFallbacks
		}
	}
	return vc, nil
}

func joinInts(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ", ")
}

// videoReference is the input image: a multipart file, a data: URL (as
// input_reference, {"image_url": …} or OpenRouter's first frame_images entry).
// It must be an image.
func videoReference(in *videoInput) ([]byte, string, *shlyuz.Error) {
	data, param := in.reference, "input_reference"
	if data == nil {
		var u string
		if raw := in.InputReference; len(raw) > 0 && string(raw) != "null" {
			var obj struct {
				ImageURL json.RawMessage `json:"image_url"`
			}
			if json.Unmarshal(raw, &u) != nil {
				if json.Unmarshal(raw, &obj) != nil {
					return nil, "", shlyuz.ErrInvalidValue(param, "input_reference must be an image file, a data: URL or {\"image_url\": …}.")
				}
				var nested struct {
					URL string `json:"url"`
				}
				if json.Unmarshal(obj.ImageURL, &u) != nil && json.Unmarshal(obj.ImageURL, &nested) == nil {
					u = nested.URL
				}
			}
		} else if len(in.FrameImages) > 0 {
			u, param = in.FrameImages[0].ImageURL.URL, "frame_images"
		}
		if u == "" {
			return nil, "", nil
		}
		b64, dataURL, ok := base64Payload(u)
		if !dataURL || !ok {
			return nil, "", shlyuz.ErrInvalidValue(param, "The image must be given as a base64 data: URL or a multipart file.")
		}
		var err error
		if data, err = base64.StdEncoding.DecodeString(b64); err != nil {
			return nil, "", shlyuz.ErrInvalidBase64(param)
		}
	}
	mt := http.DetectContentType(data)
	if !strings.HasPrefix(mt, "image/") {
		return nil, "", shlyuz.ErrUnsupportedFormat(param, "The %s must be an image (PNG, JPEG, WebP or GIF), not %s.", param, mt)
	}
	return bytes.Clone(data), mt, nil
}

// checkCallbackURL accepts only https addresses of public hosts.
func checkCallbackURL(raw string) *shlyuz.Error {
	bad := func(why string) *shlyuz.Error {
		return shlyuz.ErrInvalidValue("callback_url", "callback_url %s.", why)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return bad("is not a URL")
	}
	if u.Scheme != "https" {
		return bad("must use https")
	}
	host := u.Hostname()
	if h := strings.ToLower(host); h == "localhost" || strings.HasSuffix(h, ".localhost") || strings.HasSuffix(h, ".local") || strings.HasSuffix(h, ".internal") {
		return bad("must be a public address")
	}
	if ip := net.ParseIP(host); ip != nil && netguard.Default.CheckIP(ip) != nil {
		return bad(fmt.Sprintf("must be a public address, not %s", ip))
	}
	return nil
}

// base64Payload is the base64 of a data: URL, or s itself when it is not
// one (dataURL false); ok is false for a data: URL that is not base64.
func base64Payload(s string) (b64 string, dataURL, ok bool) {
	rest, dataURL := strings.CutPrefix(s, "data:")
	if !dataURL {
		return s, false, true
	}
	_, b64, ok = strings.Cut(rest, ";base64,")
	return b64, true, ok
}
