package fake

import (
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The fake speaks OpenAI's videos API (POST …/videos, GET …/videos/{id},
// GET …/videos/{id}/content) and makes a real MP4 of the asked seconds. The
// prompt picks the job's behaviour:
//
//	[fail]    the job fails at its first poll
//	[stuck]   the job never leaves in_progress
//	[hold]    the job stays in_progress until ReleaseVideos names a word of its prompt
//	[slow]    the job needs 6 polls instead of 2
//	[expire]  the first download of the file answers 403 (an expired link)
//	[short]   the file is 1 s long whatever was asked
//
// An Idempotency-Key makes a repeated create return the first job.
type videoFake struct {
	mu       sync.Mutex
	jobs     map[string]*fakeVideo
	byKey    map[string]string
	creates  int
	released []string
}

type fakeVideo struct {
	ID, Model, Prompt, Size string
	Seconds, Polls          int
	Created                 int64
	Downloads               int
}

// VideoCreates is how many video jobs the fake made (repeats of an
// Idempotency-Key are not counted).
func (s *Server) VideoCreates() int {
	s.vids.mu.Lock()
	defer s.vids.mu.Unlock()
	return s.vids.creates
}

// ReleaseVideos lets the jobs with [hold] and tag in their prompt complete.
func (s *Server) ReleaseVideos(tag string) {
	s.vids.mu.Lock()
	s.vids.released = append(s.vids.released, tag)
	s.vids.mu.Unlock()
}

func (s *Server) videos(w http.ResponseWriter, r *http.Request) {
	if !s.authorized(w, r) {
		return
	}
	_, rest, _ := strings.Cut(r.URL.Path, "/videos")
	rest = strings.Trim(rest, "/")
	id, content := strings.CutSuffix(rest, "/content")
	switch {
	case rest == "" && r.Method == http.MethodPost:
		s.videoCreate(w, r)
	case id != "" && !strings.Contains(id, "/") && r.Method == http.MethodGet:
		s.videoGet(w, id, content)
	default:
		writeError(w, http.StatusNotFound, "invalid_request_error", "", "unknown_url", "Unknown request URL: "+r.Method+" "+r.URL.Path+".")
	}
}

func (s *Server) videoCreate(w http.ResponseWriter, r *http.Request) {
	f := fakeVideo{Created: time.Now().Unix()}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mt {
	case "multipart/form-data":
		if err := r.ParseMultipartForm(maxBody); err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "", "", "Bad multipart body.")
			return
		}
		f.Model, f.Prompt, f.Size = r.FormValue("model"), r.FormValue("prompt"), r.FormValue("size")
		f.Seconds, _ = strconv.Atoi(r.FormValue("seconds"))
	default:
		var body struct {
			Model, Prompt, Size, Seconds string
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			writeError(w, http.StatusBadRequest, "invalid_request_error", "", "", "Bad JSON body.")
			return
		}
		f.Model, f.Prompt, f.Size = body.Model, body.Prompt, body.Size
		f.Seconds, _ = strconv.Atoi(body.Seconds)
	}
	if f.Prompt == "" {
		writeError(w, http.StatusBadRequest, "invalid_request_error", "prompt", "", "Missing prompt.")
		return
	}
	if f.Seconds <= 0 {
		f.Seconds = 4
	}
	v := &s.vids
	v.mu.Lock()
	if v.jobs == nil {
		v.jobs, v.byKey = map[string]*fakeVideo{}, map[string]string{}
	}
	key := r.Header.Get("Idempotency-Key")
	if prev, ok := v.byKey[key]; ok && key != "" {
		j := *v.jobs[prev]
		v.mu.Unlock()
		writeVideo(w, &j, "queued", 0)
		return
	}
	v.creates++
	f.ID = fmt.Sprintf("video_fake%06d", s.seq.Add(1))
	v.jobs[f.ID] = &f
	if key != "" {
		v.byKey[key] = f.ID
	}
	v.mu.Unlock()
	writeVideo(w, &f, "queued", 0)
}

func (s *Server) videoGet(w http.ResponseWriter, id string, content bool) {
	v := &s.vids
	v.mu.Lock()
	j, ok := v.jobs[id]
	if !ok {
		v.mu.Unlock()
		writeError(w, http.StatusNotFound, "invalid_request_error", "", "video_not_found", "No video "+id+".")
		return
	}
	has := func(m string) bool { return strings.Contains(j.Prompt, "["+m+"]") }
	need := 2
	if has("slow") {
		need = 6
	}
	if !content {
		j.Polls++
	}
	released := !has("hold")
	for _, tag := range v.released {
		released = released || strings.Contains(j.Prompt, tag)
	}
	done := j.Polls >= need && !has("stuck") && released
	if content {
		j.Downloads++
	}
	cp := *j
	v.mu.Unlock()
	if content {
		switch {
		case !done || has("fail"):
			writeError(w, http.StatusNotFound, "invalid_request_error", "", "video_not_ready", "The video is not ready.")
		case has("expire") && cp.Downloads == 1:
			writeError(w, http.StatusForbidden, "invalid_request_error", "", "expired", "The link expired.")
		default:
			secs := cp.Seconds
			if has("short") {
				secs = 1
			}
			b := MP4(secs)
			w.Header().Set("Content-Type", "video/mp4")
			w.Header().Set("Content-Length", strconv.Itoa(len(b)))
			_, _ = w.Write(b)
		}
		return
	}
	switch {
	case has("fail"):
		writeVideo(w, &cp, "failed", 0)
	case done:
		writeVideo(w, &cp, "completed", 100)
	case cp.Polls <= 1:
		writeVideo(w, &cp, "queued", 0)
	default:
		writeVideo(w, &cp, "in_progress", min(90, 100*cp.Polls/(need+1)))
	}
}

func writeVideo(w http.ResponseWriter, j *fakeVideo, status string, progress int) {
	obj := map[string]any{"id": j.ID, "object": "video", "model": j.Model, "status": status, "progress": progress,
		"created_at": j.Created, "size": j.Size, "seconds": strconv.Itoa(j.Seconds), "prompt": j.Prompt, "error": nil}
	if status == "failed" {
		obj["error"] = map[string]string{"code": "internal_error", "message": "The fake failed the job."}
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Openai-Poll-After-Ms", "10")
	_ = json.NewEncoder(w).Encode(obj)
}
