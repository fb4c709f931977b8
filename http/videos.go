package http

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/actors"
)

// videoObject is OpenAI's video object with the gateway's extras: credits
// (once settled) and error codes upstream_error, content_filter,
// invalid_video, cancelled and expired.
type videoObject struct {
	ID          string             `json:"id"`
	Object      string             `json:"object"`
	Model       string             `json:"model"`
	Status      string             `json:"status"`
	Progress    int                `json:"progress"`
	CreatedAt   int64              `json:"created_at"`
	CompletedAt *int64             `json:"completed_at"`
	ExpiresAt   *int64             `json:"expires_at"`
	Seconds     string             `json:"seconds"`
	Size        string             `json:"size"`
	Prompt      string             `json:"prompt"`
	Error       *shlyuz.VideoError `json:"error"`
	Credits     *shlyuz.Credits    `json:"credits"`
	RemixedFrom *string            `json:"remixed_from_video_id"`
}

func unixPtr(t interface{ Unix() int64 }, ok bool) *int64 {
	if !ok {
		return nil
	}
	v := t.Unix()
	return &v
}

func toVideoObject(j *shlyuz.VideoJob) videoObject {
	o := videoObject{ID: j.ID, Object: "video", Model: j.Model, Status: j.State.Public(), Progress: j.Progress,
		CreatedAt: j.CreatedAt.Unix(), Seconds: strconv.Itoa(j.Request.Seconds), Size: j.Size, Prompt: j.Request.Prompt, Error: j.Error}
	if j.CompletedAt != nil {
		o.CompletedAt = unixPtr(*j.CompletedAt, true)
	}
	if j.ExpiresAt != nil {
		o.ExpiresAt = unixPtr(*j.ExpiresAt, true)
	}
	if j.Settled {
		c := j.Credits
		o.Credits = &c
	}
	return o
}

// createVideo is POST /api/v1/videos: 202 with the queued job.
func (s *Server) createVideo(c *fiber.Ctx) error {
	in, e := parseVideoInput(c)
	if e != nil {
		return e
	}
	call, e := s.videoCall(c, in, keyStatus(c))
	if e != nil {
		return e
	}
	job, _, err := s.gw.CreateVideo(c.UserContext(), call)
	if err != nil {
		return err
	}
	c.Set("X-Generation-Id", job.ID)
	return c.Status(fiber.StatusAccepted).JSON(toVideoObject(job))
}

// videoOwner is the calling key as an owner of video jobs: it sees, lists,
// downloads and deletes only the jobs it made.
func videoOwner(c *fiber.Ctx) actors.VideoOwner {
	k := &keyStatus(c).Key
	return actors.VideoOwner{AccountID: k.AccountID, KeyID: k.ID}
}

// getVideo is GET /api/v1/videos/{id}.
func (s *Server) getVideo(c *fiber.Ctx) error {
	j, e := s.gw.VideoJob(c.UserContext(), videoOwner(c), c.Params("id"))
	if e != nil {
		return e
	}
	return c.JSON(toVideoObject(j))
}

// listVideos is GET /api/v1/videos: newest first; ?after=<id>&limit=n.
func (s *Server) listVideos(c *fiber.Ctx) error {
	limit := 20
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return shlyuz.ErrInvalidValue("limit", "limit must be a number from 1 to 100.")
		}
		limit = n
	}
	js, e := s.gw.VideoJobs(c.UserContext(), videoOwner(c), c.Query("after"), limit+1)
	if e != nil {
		return e
	}
	more := len(js) > limit
	if more {
		js = js[:limit]
	}
	out := struct {
		Object  string        `json:"object"`
		Data    []videoObject `json:"data"`
		FirstID *string       `json:"first_id"`
		LastID  *string       `json:"last_id"`
		HasMore bool          `json:"has_more"`
	}{Object: "list", Data: make([]videoObject, 0, len(js)), HasMore: more}
	for i := range js {
		out.Data = append(out.Data, toVideoObject(&js[i]))
	}
	if len(js) > 0 {
		out.FirstID, out.LastID = &js[0].ID, &js[len(js)-1].ID
	}
	return c.JSON(out)
}

// deleteVideo is DELETE /api/v1/videos/{id}: cancel a running job (0
// credits) or remove a finished job's file.
func (s *Server) deleteVideo(c *fiber.Ctx) error {
	j, e := s.gw.DeleteVideo(c.UserContext(), videoOwner(c), c.Params("id"))
	if e != nil {
		return e
	}
	return c.JSON(fiber.Map{"id": j.ID, "object": "video.deleted", "deleted": true, "status": j.State.Public()})
}

// videoContent is GET /api/v1/videos/{id}/content: the file from our blob
// store, with Range support.
func (s *Server) videoContent(c *fiber.Ctx) error {
	j, e := s.gw.VideoJob(c.UserContext(), videoOwner(c), c.Params("id"))
	if e != nil {
		return e
	}
	if v := c.Query("variant", "video"); v != "video" {
		return shlyuz.ErrInvalidValue("variant", "Only the variant \"video\" is kept.")
	}
	switch j.State {
	case shlyuz.VideoCompleted:
	case shlyuz.VideoPurged:
		return shlyuz.ErrNotFound("The file of video " + j.ID)
	default:
		if j.State.Finished() {
			return shlyuz.ErrConflict("video_not_ready", "The video %s failed; it has no file.", j.ID)
		}
		return shlyuz.ErrConflict("video_not_ready", "The video %s is %s; poll GET /api/v1/videos/%s until it is completed.", j.ID, j.State.Public(), j.ID)
	}
	off, n, partial := int64(0), int64(-1), false
	if rh := c.Get(fiber.HeaderRange); rh != "" {
		var ok bool
		off, n, ok = parseRange(rh, j.Bytes)
		if !ok {
			c.Set(fiber.HeaderContentRange, fmt.Sprintf("bytes */%d", j.Bytes))
			return c.Status(fiber.StatusRequestedRangeNotSatisfiable).JSON(fiber.Map{"error": fiber.Map{
				"message": "The range is outside the file.", "type": shlyuz.TypeInvalidRequest, "code": "invalid_value", "param": "Range"}})
		}
		partial = n >= 0
	}
	rc, size, err := s.gw.VideoBlobs().Get(c.UserContext(), j.Blob, off, n)
	if errors.Is(err, shlyuz.ErrNoRows) {
		return shlyuz.ErrNotFound("The file of video " + j.ID)
	}
	if err != nil {
		return shlyuz.ErrInternal(err)
	}
	length := size - off
	if partial {
		length = n
		c.Status(fiber.StatusPartialContent)
		c.Set(fiber.HeaderContentRange, fmt.Sprintf("bytes %d-%d/%d", off, off+n-1, size))
	}
	c.Set(fiber.HeaderAcceptRanges, "bytes")
	c.Set(fiber.HeaderContentType, "video/mp4")
	return c.SendStream(rc, int(length))
}

// parseRange reads one "bytes=a-b", "bytes=a-" or "bytes=-n" range of a file
// of size bytes; n is -1 for a header it ignores (several ranges: the whole
// file is sent). ok is false for a range outside the file.
func parseRange(h string, size int64) (off, n int64, ok bool) {
	spec, found := strings.CutPrefix(strings.TrimSpace(h), "bytes=")
	if !found || strings.Contains(spec, ",") {
		return 0, -1, true
	}
	a, b, found := strings.Cut(spec, "-")
	if !found {
		return 0, -1, true
	}
	if a == "" { // the last b bytes
		k, err := strconv.ParseInt(b, 10, 64)
		if err != nil || k <= 0 {
			return 0, 0, false
		}
		k = min(k, size)
		return size - k, k, size > 0
	}
	start, err := strconv.ParseInt(a, 10, 64)
	if err != nil || start < 0 || start >= size {
		return 0, 0, false
	}
	end := size - 1
	if b != "" {
		e, err := strconv.ParseInt(b, 10, 64)
		if err != nil || e < start {
			return 0, 0, false
		}
		end = min(e, size-1)
	}
	return start, end - start + 1, true
}

// videoModel is one entry of GET /api/v1/videos/models.
type videoModel struct {
	ID                    string   `json:"id"`
	Name                  string   `json:"name"`
	SupportedDurations    []int    `json:"supported_durations"`
	DefaultSeconds        int      `json:"default_seconds"`
	SupportedSizes        []string `json:"supported_sizes"`
	DefaultSize           string   `json:"default_size"`
	SupportedResolutions  []string `json:"supported_resolutions"`
	SupportedAspectRatios []string `json:"supported_aspect_ratios"`
	Pricing               struct {
		CreditsPerSecond shlyuz.Credits `json:"credits_per_second"`
	} `json:"pricing"`
}

// videoModels is GET /api/v1/videos/models.
func (s *Server) videoModels(c *fiber.Ctx) error {
	cat := s.gw.Catalog()
	out := []videoModel{}
	for _, m := range cat.List() {
		if m.Video == nil {
			continue
		}
		v := videoModel{ID: m.ID, Name: m.Name, SupportedDurations: m.Video.Durations, DefaultSeconds: m.Video.DefaultSeconds,
			SupportedSizes: m.Video.Sizes, DefaultSize: m.Video.DefaultSize, SupportedResolutions: m.Video.Resolutions,
			SupportedAspectRatios: m.Video.AspectRatios}
		v.Pricing.CreditsPerSecond = m.Video.CreditsPerSecond(cat.Pricing)
		out = append(out, v)
	}
	return c.JSON(fiber.Map{"object": "list", "data": out})
}

func (s *Server) videoRoutes(v1 fiber.Router) {
	v1.Get("/videos/models", s.authenticated, s.videoModels)
	v1.Post("/videos", s.authenticated, s.createVideo)
	v1.Get("/videos", s.authenticated, s.listVideos)
	v1.Get("/videos/:id/content", s.authenticated, s.videoContent)
	v1.Get("/videos/:id", s.authenticated, s.getVideo)
	v1.Delete("/videos/:id", s.authenticated, s.deleteVideo)
}
