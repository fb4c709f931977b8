package fake

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Black Forest Labs' FLUX API under /bfl: POST /bfl/v1/<model> answers a
// task id, its polling_url and its cost (credits of $0.01: 3 a megapixel,
// rounded up to a tenth); the polling_url says Pending once, then Ready
// with a sample URL on the fake, which serves the PNG. Faults by the model
// name: fault-moderated (Content Moderated), fault-request-moderated
// (Request Moderated), fault-error (Error), fault-expired (the sample URL
// answers 403).

var (
	bflTasks sync.Map // id → *bflTask
	bflSeq   atomic.Int64
)

type bflTask struct {
	polls atomic.Int32
	fault string
	image []byte
}

func (s *Server) bfl(w http.ResponseWriter, r *http.Request) {
	p := strings.TrimPrefix(r.URL.Path, "/bfl")
	if strings.HasPrefix(p, "/delivery/") { // a signed sample URL: no key needed
		v, ok := bflTasks.Load(strings.TrimSuffix(strings.TrimPrefix(p, "/delivery/"), ".png"))
		if !ok || v.(*bflTask).fault == "expired" {
			http.Error(w, "AccessDenied: Request has expired", http.StatusForbidden)
			return
		}
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(v.(*bflTask).image)
		return
	}
	if r.Header.Get("x-key") != s.opts.APIKey && s.opts.APIKey != "" {
		writeJSONStatus(w, http.StatusForbidden, map[string]any{"detail": "Not authenticated - Invalid Authentication"})
		return
	}
	if p == "/v1/get_result" {
		v, ok := bflTasks.Load(r.URL.Query().Get("id"))
		if !ok {
			writeJSON(w, map[string]any{"id": r.URL.Query().Get("id"), "status": "Task not found"})
			return
		}
		t := v.(*bflTask)
		id := r.URL.Query().Get("id")
		if t.polls.Add(1) < 2 {
			writeJSON(w, map[string]any{"id": id, "status": "Pending", "progress": 0.5})
			return
		}
		switch t.fault {
		case "moderated":
			writeJSON(w, map[string]any{"id": id, "status": "Content Moderated"})
		case "request-moderated":
			writeJSON(w, map[string]any{"id": id, "status": "Request Moderated"})
		case "error":
			writeJSON(w, map[string]any{"id": id, "status": "Error"})
		default:
			writeJSON(w, map[string]any{"id": id, "status": "Ready", "result": map[string]any{"sample": "http://" + r.Host + "/bfl/delivery/" + id + ".png"}})
		}
		return
	}
	model := strings.TrimPrefix(p, "/v1/")
	var req struct {
		Prompt string `json:"prompt"`
		Width  int    `json:"width"`
		Height int    `json:"height"`
	}
	if r.Method != http.MethodPost || model == "" || strings.Contains(model, "/") {
		writeJSONStatus(w, http.StatusNotFound, map[string]any{"detail": "Not Found"})
		return
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Prompt == "" {
		writeJSONStatus(w, http.StatusUnprocessableEntity, map[string]any{"detail": []map[string]any{{"loc": []string{"body", "prompt"}, "msg": "Field required"}}})
		return
	}
	if req.Width == 0 || req.Height == 0 {
		req.Width, req.Height = 1024, 768
	}
	id := "bfl-" + strconv.FormatInt(bflSeq.Add(1), 10)
	// a small image of the asked aspect (64 px high)
	bflTasks.Store(id, &bflTask{fault: faultFromModel(model), image: makeImage(max(1, 64*req.Width/req.Height), 64, "png", 0)})
	mp := float64(req.Width*req.Height) / 1e6
	cost := float64(int(mp*3*10+0.999)) / 10
	writeJSON(w, map[string]any{"id": id, "polling_url": "http://" + r.Host + "/bfl/v1/get_result?id=" + id, "cost": cost,
		"input_mp": 0, "output_mp": mp})
}
