package fake

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The keys the fake's Kling accepts: the gateway's key is "<access>:<secret>".
const (
	KlingAccessKey = "ak-fake"
	KlingSecretKey = "sk-fake"
)

// kling speaks Kling's video API under /kling: POST /v1/videos/{text2video|image2video}
// and GET …/{task_id}, with a JWT (HS256, iss, exp, nbf) checked on every
// call; errors are a non-zero code (auth failures with HTTP 401). The file
// is at /kling/files/{id}.mp4.
func (s *Server) kling(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimPrefix(r.URL.Path, "/kling")
	if f, ok := strings.CutPrefix(p, "/files/"); ok {
		s.serveFile(w, strings.TrimSuffix(f, ".mp4"))
		return
	}
	if !klingTokenValid(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), time.Now()) {
		writeJSONStatus(w, http.StatusUnauthorized, map[string]any{"code": 1004, "message": "Auth failed", "request_id": "fake"})
		return
	}
	rest, ok := strings.CutPrefix(p, "/v1/videos/")
	kind, id, _ := strings.Cut(rest, "/")
	if !ok || (kind != "text2video" && kind != "image2video") {
		writeJSONStatus(w, http.StatusNotFound, map[string]any{"code": 1203, "message": "not found", "request_id": "fake"})
		return
	}
	switch {
	case id == "" && r.Method == http.MethodPost:
		var body struct {
			ModelName string `json:"model_name"`
			Prompt    string `json:"prompt"`
			Duration  string `json:"duration"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil || body.Prompt == "" {
			writeJSON(w, map[string]any{"code": 1201, "message": "invalid request: prompt is required", "request_id": "fake"})
			return
		}
		secs, err := strconv.Atoi(body.Duration)
		if err != nil {
			writeJSON(w, map[string]any{"code": 1201, "message": "duration must be a string of seconds", "request_id": "fake"})
			return
		}
		j := s.vids.create(fakeVideo{Model: body.ModelName, Prompt: body.Prompt, Seconds: secs}, "", s.seq.Add(1))
		writeJSON(w, map[string]any{"code": 0, "message": "SUCCEED", "request_id": "fake",
			"data": map[string]any{"task_id": j.ID, "task_status": "submitted", "created_at": j.Created * 1000, "updated_at": j.Created * 1000}})
	case id != "" && r.Method == http.MethodGet:
		j, phase, _, ok := s.vids.poll(id)
		if !ok {
			writeJSON(w, map[string]any{"code": 1203, "message": "task not found", "request_id": "fake"})
			return
		}
		d := map[string]any{"task_id": j.ID, "created_at": j.Created * 1000}
		switch {
		case phase == phaseFailed:
			d["task_status"], d["task_status_msg"] = "failed", "The fake failed the task."
		case phase == phaseCompleted && j.has("moderate"):
			d["task_status"], d["task_status_msg"] = "failed", "Failure to pass the risk control system"
		case phase == phaseCompleted:
			d["task_status"] = "succeed"
			d["task_result"] = map[string]any{"videos": []any{map[string]any{"id": j.ID, "url": "http://" + r.Host + "/kling/files/" + j.ID + ".mp4", "duration": strconv.Itoa(j.Seconds) + ".042"}}}
		case phase == phaseInProgress:
			d["task_status"] = "processing"
		default:
			d["task_status"] = "submitted"
		}
		writeJSON(w, map[string]any{"code": 0, "message": "SUCCEED", "request_id": "fake", "data": d})
	default:
		writeJSONStatus(w, http.StatusNotFound, map[string]any{"code": 1203, "message": "not found", "request_id": "fake"})
	}
}

// klingTokenValid checks the JWT's signature with KlingSecretKey and its claims.
func klingTokenValid(tok string, now time.Time) bool {
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		return false
	}
	mac := hmac.New(sha256.New, []byte(KlingSecretKey))
	mac.Write([]byte(parts[0] + "." + parts[1]))
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil || !hmac.Equal(sig, mac.Sum(nil)) {
		return false
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	var c struct {
		Iss      string `json:"iss"`
		Exp, Nbf int64
	}
	if err != nil || json.Unmarshal(raw, &c) != nil {
		return false
	}
	return c.Iss == KlingAccessKey && now.Unix() < c.Exp && now.Unix() >= c.Nbf
}
