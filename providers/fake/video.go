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

	"github.com/shlyuz/shlyuz/media/mediatest"
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
//	[moderate] the upstream's own moderation outcome (Veo: RAI-filtered,
//	          Kling: a failed task, MiniMax: 1026 in HTTP 200)
//
// The same jobs are spoken as Veo (video_veo.go), Kling and MiniMax.
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
	f := fakeVideo{}
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
	j := s.vids.create(f, r.Header.Get("Idempotency-Key"), s.seq.Add(1))
	writeVideo(w, &j, "queued", 0)
}

// create makes a job (or finds the one an idempotency key made).
func (v *videoFake) create(f fakeVideo, key string, seq uint64) fakeVideo {
	if f.Seconds <= 0 {
		f.Seconds = 4
	}
	f.Created = time.Now().Unix()
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.jobs == nil {
		v.jobs, v.byKey = map[string]*fakeVideo{}, map[string]string{}
	}
	if prev, ok := v.byKey[key]; ok && key != "" {
		return *v.jobs[prev]
	}
	v.creates++
	f.ID = fmt.Sprintf("video_fake%06d", seq)
	v.jobs[f.ID] = &f
	if key != "" {
		v.byKey[key] = f.ID
	}
	return f
}

// The phases of a fake job.
const (
	phaseQueued     = "queued"
	phaseInProgress = "in_progress"
	phaseCompleted  = "completed"
	phaseFailed     = "failed"
)

// poll advances a job by one poll and returns its phase and progress.
func (v *videoFake) poll(id string) (fakeVideo, string, int, bool) {
	return v.step(id, false)
}

// file is the job's file for a download: nil and a status for none.
func (v *videoFake) file(id string) ([]byte, int) {
	j, phase, _, ok := v.step(id, true)
	switch {
	case !ok:
		return nil, http.StatusNotFound
	case phase != phaseCompleted:
		return nil, http.StatusNotFound
	case j.has("expire") && j.Downloads == 1:
		return nil, http.StatusForbidden
	case j.has("short"):
		return mediatest.MP4(1), http.StatusOK
	}
	return mediatest.MP4(j.Seconds), http.StatusOK
}

func (j *fakeVideo) has(m string) bool { return strings.Contains(j.Prompt, "["+m+"]") }

func (v *videoFake) step(id string, download bool) (fakeVideo, string, int, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	j, ok := v.jobs[id]
	if !ok {
		return fakeVideo{}, "", 0, false
	}
	need := 2
	if j.has("slow") {
		need = 6
	}
	if download {
		j.Downloads++
	} else {
		j.Polls++
	}
	released := !j.has("hold")
	for _, tag := range v.released {
		released = released || strings.Contains(j.Prompt, tag)
	}
	done := j.Polls >= need && !j.has("stuck") && released
	switch {
	case j.has("fail"):
		return *j, phaseFailed, 0, true
	case done:
		return *j, phaseCompleted, 100, true
	case j.Polls <= 1:
		return *j, phaseQueued, 0, true
	}
	return *j, phaseInProgress, min(90, 100*j.Polls/(need+1)), true
}

func (s *Server) videoGet(w http.ResponseWriter, id string, content bool) {
	if content {
		b, st := s.vids.file(id)
		if b == nil {
			writeError(w, st, "invalid_request_error", "", "video_not_ready", "The video is not ready, or its link expired.")
			return
		}
		writeMP4(w, b)
		return
	}
	j, phase, progress, ok := s.vids.poll(id)
	if !ok {
		writeError(w, http.StatusNotFound, "invalid_request_error", "", "video_not_found", "No video "+id+".")
		return
	}
	writeVideo(w, &j, phase, progress)
}

// serveFile answers a download of the job's file (the status of file when none).
func (s *Server) serveFile(w http.ResponseWriter, id string) {
	b, st := s.vids.file(id)
	if b == nil {
		w.WriteHeader(st)
		return
	}
	writeMP4(w, b)
}

func writeMP4(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "video/mp4")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
}

func writeVideo(w http.ResponseWriter, j *fakeVideo, status string, progress int) {
	obj := map[string]any{"id": j.ID, "object": "video", "model": j.Model, "status": status, "progress": progress,
		"created_at": j.Created, "size": j.Size, "seconds": strconv.Itoa(j.Seconds), "prompt": j.Prompt, "error": nil}
	if status == "failed" {
		obj["error"] = map[string]string{"code": "internal_error", "message": "The fake failed the job."}
	}
	w.Header().Set("Openai-Poll-After-Ms", "10")
	writeJSON(w, obj)
}

func writeJSON(w http.ResponseWriter, v any) { writeJSONStatus(w, http.StatusOK, v) }

func writeJSONStatus(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
