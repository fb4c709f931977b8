package fake

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// YandexART: imageGenerationAsync creates an operation ("yaart-<n>") that
// is done on its second poll with a JPEG of the asked aspect ratio (64 px on
// the short side). Faults by the model in modelUri: fault-moderated (the
// create's HTTP 400 refusal), fault-failed (the operation ends in an error).

var (
	artOps sync.Map // id → *artOp
	artSeq atomic.Int64
)

type artOp struct {
	polls  atomic.Int32
	failed bool
	image  []byte
}

func (s *Server) yandexArt(w http.ResponseWriter, r *http.Request) {
	if !s.yandexAuthorized(w, r) {
		return
	}
	if r.Method == http.MethodGet { // an operation
		v, ok := artOps.Load(r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:])
		if !ok {
			writeYandexError(w, http.StatusNotFound, "Operation not found")
			return
		}
		op := v.(*artOp)
		id := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
		out := map[string]any{"id": id, "description": "Image generation", "createdAt": time.Now().UTC().Format(time.RFC3339), "done": false}
		if op.polls.Add(1) >= 2 {
			out["done"] = true
			if op.failed {
				out["error"] = map[string]any{"code": 13, "message": "Internal error", "details": []any{}}
			} else {
				out["response"] = map[string]any{"@type": "type.googleapis.com/yandex.cloud.ai.foundation_models.v1.image_generation.ImageGenerationResponse",
					"image": base64.StdEncoding.EncodeToString(op.image), "modelVersion": "fake"}
			}
		}
		writeJSON(w, out)
		return
	}
	var req struct {
		ModelURI string `json:"modelUri"`
		Messages []struct {
			Text string `json:"text"`
		} `json:"messages"`
		GenerationOptions struct {
			MimeType    string `json:"mimeType"`
			AspectRatio *struct {
				WidthRatio  string `json:"widthRatio"`
				HeightRatio string `json:"heightRatio"`
			} `json:"aspectRatio"`
		} `json:"generationOptions"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || !strings.HasPrefix(req.ModelURI, "art://") || len(req.Messages) == 0 || req.Messages[0].Text == "" {
		writeYandexError(w, http.StatusBadRequest, "modelUri art://… and a message with text are required")
		return
	}
	if faultFromModel(req.ModelURI) == "moderated" {
		writeYandexError(w, http.StatusBadRequest, "it is not possible to generate an image from this request because it may violate the terms of use")
		return
	}
	width, height := 64, 64
	if ar := req.GenerationOptions.AspectRatio; ar != nil {
		rw, _ := strconv.Atoi(ar.WidthRatio)
		rh, _ := strconv.Atoi(ar.HeightRatio)
		if rw > 0 && rh > 0 && rw >= rh {
			width = 64 * rw / rh
		} else if rw > 0 && rh > 0 {
			height = 64 * rh / rw
		}
	}
	id := "yaart-" + strconv.FormatInt(artSeq.Add(1), 10)
	artOps.Store(id, &artOp{failed: faultFromModel(req.ModelURI) == "failed", image: makeImage(width, height, "jpeg", 0)})
	writeJSON(w, map[string]any{"id": id, "description": "Image generation", "done": false})
}
