package fake

import (
	"encoding/json"
	"net/http"
	"strings"
)

// veo speaks Veo through the Gemini API: POST …/models/{m}:predictLongRunning,
// GET …/models/{m}/operations/{id}, and the file at …/files/{id}:download
// (a redirect to the bytes), each with x-goog-api-key.
func (s *Server) veo(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	i := strings.Index(p, "/v1beta/")
	if i < 0 {
		writeError(w, http.StatusNotFound, "NOT_FOUND", "", "", "Unknown path.")
		return
	}
	root := "http://" + r.Host + p[:i] + "/v1beta/"
	rest := p[i+len("/v1beta/"):]
	if r.Header.Get("X-Goog-Api-Key") == "" && !strings.HasSuffix(rest, ":blob") {
		writeGoogleError(w, http.StatusForbidden, "PERMISSION_DENIED", "Method doesn't allow unregistered callers.")
		return
	}
	switch {
	case strings.HasSuffix(rest, ":predictLongRunning") && r.Method == http.MethodPost:
		model := strings.TrimSuffix(strings.TrimPrefix(rest, "models/"), ":predictLongRunning")
		var body struct {
			Instances []struct {
				Prompt string `json:"prompt"`
			} `json:"instances"`
			Parameters struct {
				DurationSeconds int `json:"durationSeconds"`
			} `json:"parameters"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || len(body.Instances) != 1 || body.Instances[0].Prompt == "" {
			writeGoogleError(w, http.StatusBadRequest, "INVALID_ARGUMENT", "A prompt is required.")
			return
		}
		j := s.vids.create(fakeVideo{Model: model, Prompt: body.Instances[0].Prompt, Seconds: body.Parameters.DurationSeconds}, "", s.seq.Add(1))
		writeJSON(w, map[string]any{"name": "models/" + model + "/operations/" + j.ID, "done": false})
	case strings.Contains(rest, "/operations/") && r.Method == http.MethodGet:
		id := rest[strings.LastIndex(rest, "/")+1:]
		j, phase, _, ok := s.vids.poll(id)
		if !ok {
			writeGoogleError(w, http.StatusNotFound, "NOT_FOUND", "Operation not found.")
			return
		}
		op := map[string]any{"name": rest}
		switch {
		case phase == phaseFailed:
			op["done"], op["error"] = true, map[string]any{"code": 13, "message": "The fake failed the job."}
		case phase == phaseCompleted && j.has("moderate"):
			op["done"], op["response"] = true, map[string]any{"@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse",
				"generateVideoResponse": map[string]any{"raiMediaFilteredCount": 1, "raiMediaFilteredReasons": []string{"filtered"}}}
		case phase == phaseCompleted:
			op["done"], op["response"] = true, map[string]any{"@type": "type.googleapis.com/google.ai.generativelanguage.v1beta.PredictLongRunningResponse",
				"generateVideoResponse": map[string]any{"generatedSamples": []any{map[string]any{"video": map[string]any{"uri": root + "files/" + j.ID + ":download?alt=media"}}}}}
		default:
			op["done"] = false
		}
		writeJSON(w, op)
	case strings.HasSuffix(rest, ":download"):
		http.Redirect(w, r, root+strings.TrimSuffix(rest, ":download")+":blob", http.StatusFound)
	case strings.HasSuffix(rest, ":blob"):
		b, st := s.vids.file(strings.TrimSuffix(strings.TrimPrefix(rest, "files/"), ":blob"))
		if b == nil {
			writeGoogleError(w, st, "NOT_FOUND", "No such file.")
			return
		}
		writeMP4(w, b)
	default:
		writeGoogleError(w, http.StatusNotFound, "NOT_FOUND", "Unknown path.")
	}
}

func writeGoogleError(w http.ResponseWriter, status int, st, msg string) {
	writeJSONStatus(w, status, map[string]any{"error": map[string]any{"code": status, "message": msg, "status": st}})
}
