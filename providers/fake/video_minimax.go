package fake

import (
	"encoding/json"
	"net/http"
	"strings"
)

// minimax speaks MiniMax's video API under /minimax: POST /v1/video_generation,
// GET /v1/query/video_generation?task_id=, GET /v1/files/retrieve?file_id=
// (a download URL at /minimax/download/{id}.mp4). Errors are
// base_resp.status_code inside HTTP 200 (1004 without a key, 1026 for
// [moderate], 2013 for bad parameters).
func (s *Server) minimax(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimPrefix(r.URL.Path, "/minimax")
	base := func(code int, msg string) map[string]any {
		return map[string]any{"status_code": code, "status_msg": msg}
	}
	if f, ok := strings.CutPrefix(p, "/download/"); ok {
		s.serveFile(w, strings.TrimSuffix(f, ".mp4"))
		return
	}
	if strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ") == "" {
		writeJSON(w, map[string]any{"base_resp": base(1004, "login fail: Please carry the API secret key in the 'Authorization' field")})
		return
	}
	switch {
	case p == "/v1/video_generation" && r.Method == http.MethodPost:
		var body struct {
			Model    string `json:"model"`
			Prompt   string `json:"prompt"`
			Duration int    `json:"duration"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Prompt == "" {
			writeJSON(w, map[string]any{"task_id": "", "base_resp": base(2013, "invalid params, prompt is required")})
			return
		}
		if strings.Contains(body.Prompt, "[moderate]") {
			writeJSON(w, map[string]any{"task_id": "", "base_resp": base(1026, "input new_sensitive")})
			return
		}
		j := s.vids.create(fakeVideo{Model: body.Model, Prompt: body.Prompt, Seconds: body.Duration}, "", s.seq.Add(1))
		writeJSON(w, map[string]any{"task_id": j.ID, "base_resp": base(0, "success")})
	case p == "/v1/query/video_generation" && r.Method == http.MethodGet:
		id := r.URL.Query().Get("task_id")
		j, phase, _, ok := s.vids.poll(id)
		if !ok {
			writeJSON(w, map[string]any{"task_id": id, "status": "", "base_resp": base(2013, "task not found")})
			return
		}
		out := map[string]any{"task_id": j.ID, "base_resp": base(0, "success")}
		switch phase {
		case phaseFailed:
			out["status"] = "Fail"
		case phaseCompleted:
			out["status"], out["file_id"], out["video_width"], out["video_height"] = "Success", j.ID, 32, 32
		case phaseInProgress:
			out["status"] = "Processing"
		default:
			out["status"] = "Queueing"
		}
		writeJSON(w, out)
	case p == "/v1/files/retrieve" && r.Method == http.MethodGet:
		id := r.URL.Query().Get("file_id")
		writeJSON(w, map[string]any{"file": map[string]any{"file_id": id, "filename": "output.mp4",
			"download_url": "http://" + r.Host + "/minimax/download/" + id + ".mp4"}, "base_resp": base(0, "success")})
	default:
		writeJSON(w, map[string]any{"base_resp": base(2013, "unknown path")})
	}
}
