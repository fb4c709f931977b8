package fake

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// OpenAI's image API (/v1/images/generations): real PNG or JPEG images of the
// requested size, made in pure Go. A gpt-image model's reply carries token
// usage (output tokens by size and quality, as OpenAI counts them); a dall-e
// model's none. Faults by the model name: fault-moderated (400
// moderation_blocked), fault-empty (no image), fault-500, fault-slow (a
// second late), fault-url (URLs to the fake's own files instead of base64),
// fault-expired-url (URLs that answer 404).

// imageRequest is the part of OpenAI's image request the fake reads.
type imageRequest struct {
	Model          string `json:"model"`
	Prompt         string `json:"prompt"`
	N              int    `json:"n"`
	Size           string `json:"size"`
	Quality        string `json:"quality"`
	OutputFormat   string `json:"output_format"`
	ResponseFormat string `json:"response_format"`
}

// imageTokens is OpenAI's count of a gpt-image image's output tokens.
var imageTokens = map[string]int64{
	"1024x1024/low": 272, "1024x1024/medium": 1056, "1024x1024/high": 4160,
	"1024x1536/low": 408, "1024x1536/medium": 1584, "1024x1536/high": 6240,
	"1536x1024/low": 400, "1536x1024/medium": 1568, "1536x1024/high": 6208,
}

// imageFiles are the images the fake serves by URL (fault-url).
var imageFiles sync.Map // name → []byte

func (s *Server) images(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet && strings.Contains(r.URL.Path, "/files/") {
		name := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		if b, ok := imageFiles.Load(name); ok && !strings.HasPrefix(name, "expired-") {
			w.Header().Set("Content-Type", http.DetectContentType(b.([]byte)))
			_, _ = w.Write(b.([]byte))
			return
		}
		writeError(w, http.StatusNotFound, "invalid_request_error", "", "not_found", "The file has expired.")
		return
	}
	if r.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "", "", "Only POST is allowed here.")
		return
	}
	if !s.authorized(w, r) {
		return
	}
	var req imageRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Prompt == "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "prompt", "invalid_value", "A prompt is required.")
		return
	}
	if req.N == 0 {
		req.N = 1
	}
	if req.Size == "" || req.Size == "auto" {
		req.Size = "1024x1024"
	}
	width, height, ok := parseSize(req.Size)
	if !ok || req.N > 10 {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "size", "invalid_value", "Invalid size or n.")
		return
	}
	switch faultFromModel(req.Model) {
	case "moderated":
		writeError(w, http.StatusBadRequest, "image_generation_user_error", "", "moderation_blocked",
			"Your request was rejected as a result of our safety system.")
		return
	case "500":
		writeError(w, http.StatusInternalServerError, "server_error", "", "", "The server had an error.")
		return
	case "slow":
		if !s.wait(r.Context(), time.Second) {
			return
		}
	case "empty":
		writeJSON(w, map[string]any{"created": time.Now().Unix(), "data": []any{}})
		return
	}
	format := req.OutputFormat
	if format == "" {
		format = "png"
	}
	data := make([]map[string]any, 0, req.N)
	for i := range req.N {
		img := makeImage(width, height, format, i)
		switch f := faultFromModel(req.Model); f {
		case "url", "expired-url":
			name := strconv.FormatInt(s.requests.Load(), 10) + "-" + strconv.Itoa(i)
			if f == "expired-url" {
				name = "expired-" + name
			}
			imageFiles.Store(name, img)
			data = append(data, map[string]any{"url": "http://" + r.Host + "/v1/images/files/" + name})
		default:
			d := map[string]any{"b64_json": base64.StdEncoding.EncodeToString(img)}
			if strings.Contains(req.Model, "dall-e-3") {
				d["revised_prompt"] = "A fake image of: " + req.Prompt
			}
			data = append(data, d)
		}
	}
	out := map[string]any{"created": time.Now().Unix(), "data": data}
	if !strings.Contains(req.Model, "dall-e") {
		quality := req.Quality
		if quality == "" || quality == "auto" {
			quality = "medium"
		}
		perImage := imageTokens[req.Size+"/"+quality]
		if perImage == 0 {
			perImage = 1056
		}
		in := int64(len(req.Prompt)/4 + 1)
		out["output_format"] = format
		out["usage"] = map[string]any{"input_tokens": in, "output_tokens": perImage * int64(req.N),
			"total_tokens": in + perImage*int64(req.N), "input_tokens_details": map[string]any{"text_tokens": in, "image_tokens": 0}}
	}
	writeJSON(w, out)
}

// chatImage is the image a chat reply with modalities ["image", …] carries,
// as OpenRouter's message.images[] entry, and its tokens (Gemini's count of a
// 1024² image).
func chatImage() ([]byte, int) {
	url := "data:image/png;base64," + base64.StdEncoding.EncodeToString(makeImage(64, 64, "png", 0))
	b, _ := json.Marshal(map[string]any{"type": "image_url", "image_url": map[string]string{"url": url}})
	return b, 1290
}

func parseSize(s string) (int, int, bool) {
	ws, hs, ok := strings.Cut(s, "x")
	w, err1 := strconv.Atoi(ws)
	h, err2 := strconv.Atoi(hs)
	return w, h, ok && err1 == nil && err2 == nil && w > 0 && h > 0 && w <= 4096 && h <= 4096
}

// madeImages are makeImage's results, by size, format and index.
var madeImages sync.Map

// makeImage draws a width × height gradient (the i-th of a request a little
// different) as PNG or JPEG.
func makeImage(width, height int, format string, i int) []byte {
	key := strconv.Itoa(width) + "x" + strconv.Itoa(height) + format + strconv.Itoa(i%4)
	if b, ok := madeImages.Load(key); ok {
		return b.([]byte)
	}
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	for y := range height {
		row := img.Pix[y*img.Stride:]
		for x := range width {
			c := color.RGBA{R: uint8(x * 255 / width), G: uint8(y * 255 / height), B: uint8(40 * (i % 4)), A: 255}
			row[4*x], row[4*x+1], row[4*x+2], row[4*x+3] = c.R, c.G, c.B, c.A
		}
	}
	var b bytes.Buffer
	if format == "jpeg" || format == "jpg" {
		_ = jpeg.Encode(&b, img, &jpeg.Options{Quality: 60})
	} else {
		_ = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, img)
	}
	madeImages.Store(key, b.Bytes())
	return b.Bytes()
}

// imagen answers Imagen's :predict (the Gemini API): sampleCount PNGs of
// the aspect ratio, small (the ratio scaled to 64 px on the short side).
// Faults by the model name: fault-moderated (every sample filtered, with
// raiFilteredReason), fault-empty (no prediction), fault-500.
func (s *Server) imagen(w http.ResponseWriter, r *http.Request) {
	model := strings.TrimSuffix(r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:], ":predict")
	if !s.geminiAuthorized(w, r) {
		return
	}
	var req struct {
		Instances []struct {
			Prompt string `json:"prompt"`
		} `json:"instances"`
		Parameters struct {
			SampleCount int    `json:"sampleCount"`
			AspectRatio string `json:"aspectRatio"`
		} `json:"parameters"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Instances) != 1 || req.Instances[0].Prompt == "" ||
		req.Parameters.SampleCount < 1 || req.Parameters.SampleCount > 4 {
		writeGeminiError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "One instance with a prompt and a sampleCount of 1 to 4 are required.", "")
		return
	}
	width, height := 64, 64
	if a, b, ok := strings.Cut(req.Parameters.AspectRatio, ":"); ok {
		rw, _ := strconv.Atoi(a)
		rh, _ := strconv.Atoi(b)
		if rw > 0 && rh > 0 && rw >= rh {
			width = 64 * rw / rh
		} else if rw > 0 && rh > 0 {
			height = 64 * rh / rw
		}
	}
	preds := []map[string]string{}
	switch faultFromModel(model) {
	case "500":
		writeGeminiStatusFault(w, http.StatusInternalServerError, model)
		return
	case "moderated":
		for range req.Parameters.SampleCount {
			preds = append(preds, map[string]string{"raiFilteredReason": "Your current safety filter threshold filtered out the image."})
		}
	case "empty":
	default:
		for i := range req.Parameters.SampleCount {
			preds = append(preds, map[string]string{"mimeType": "image/png",
				"bytesBase64Encoded": base64.StdEncoding.EncodeToString(makeImage(width, height, "png", i))})
		}
	}
	writeJSON(w, map[string]any{"predictions": preds})
}
