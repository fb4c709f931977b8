package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// Video models, one per adapter, all served by the fake: vid/ through the
// OpenAI videos API, veo/ through Veo on the Gemini API, kling/ and hailuo/
// (MiniMax). At rate 100 and K 1, 0.1 USD a second is 1,000,000 credits a second.
const (
	videoTestModels = `  - {id: "vid/model", name: "Video", input_modalities: [text, image], output_modalities: [video], video: {durations: [4, 8], default_seconds: 4, sizes: ["720x1280", "1280x720"], default_size: "720x1280", resolutions: ["720p"], aspect_ratios: ["16:9", "9:16"], usd_per_second: "0.1"}}
  - {id: "veo/model", name: "Veo", input_modalities: [text, image], output_modalities: [video], video: {durations: [4, 6, 8], default_seconds: 8, sizes: ["1280x720", "720x1280"], default_size: "1280x720", resolutions: ["720p", "1080p"], aspect_ratios: ["16:9", "9:16"], usd_per_second: "0.1"}}
  - {id: "kling/model", name: "Kling", input_modalities: [text, image], output_modalities: [video], video: {durations: [5, 10], default_seconds: 5, sizes: ["1280x720"], default_size: "1280x720", aspect_ratios: ["16:9", "9:16", "1:1"], usd_per_second: "0.1"}}
  - {id: "hailuo/model", name: "Hailuo", input_modalities: [text, image], output_modalities: [video], video: {durations: [6, 10], default_seconds: 6, sizes: ["1366x768"], default_size: "1366x768", resolutions: ["768p", "1080p"], usd_per_second: "0.1"}}
`
	creditsPerVideoSecond = 1_000_000
)

func init() { os.Setenv("SHLYUZ_TEST_KLING_KEY", fake.KlingAccessKey+":"+fake.KlingSecretKey) }

// withVideoUpstreams adds the Kling and MiniMax upstreams and the video
// models' routes to the test config (Veo goes to the gemini upstream).
func withVideoUpstreams(root, cfg string) string {
	ups := fmt.Sprintf(`  - {name: kling, protocol: kling, base_url: %q, api_key_env: SHLYUZ_TEST_KLING_KEY}
  - {name: minimax, protocol: minimax, base_url: %q, api_key_env: SHLYUZ_TEST_FAKE_KEY}
routes:
  - {match: "veo/", upstreams: [gemini], strip_prefix: true}
  - {match: "kling/", upstreams: [kling], strip_prefix: true}
  - {match: "hailuo/", upstreams: [minimax], strip_prefix: true}
`, root+"/kling", root+"/minimax")
	return strings.Replace(cfg, "routes:\n", ups, 1)
}

type videoView struct {
	ID       string `json:"id"`
	Object   string `json:"object"`
	Status   string `json:"status"`
	Progress int    `json:"progress"`
	Seconds  string `json:"seconds"`
	Size     string `json:"size"`
	Credits  *int64 `json:"credits"`
	Error    *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	ExpiresAt *int64 `json:"expires_at"`
}

func createVideo(t testing.TB, base, key string, body map[string]any) videoView {
	t.Helper()
	var v videoView
	if st := call(t, base, "POST", "/api/v1/videos", key, body, &v); st != 202 {
		t.Fatalf("create video: %d %+v", st, v)
	}
	if v.Status != "queued" || v.Object != "video" || v.ID == "" {
		t.Fatalf("created: %+v", v)
	}
	return v
}

// waitVideo polls the job until it has ended (completed or failed) and settled.
func waitVideo(t testing.TB, base, key, id string) videoView {
	t.Helper()
	var v videoView
	waitFor(t, 60*time.Second, "video "+id+" to end", func() bool {
		v = videoView{}
		call(t, base, "GET", "/api/v1/videos/"+id, key, nil, &v)
		return (v.Status == "completed" || v.Status == "failed") && v.Credits != nil
	})
	return v
}

func getContent(t testing.TB, base, key, id, rng string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest("GET", base+"/api/v1/videos/"+id+"/content", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	if rng != "" {
		req.Header.Set("Range", rng)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func TestVideoJobEndToEnd(t *testing.T) {
	const credits = 100_000_000
	_, key := account(t, h.base, credits, nil)
	_, other := account(t, h.base, credits, nil)
	v := createVideo(t, h.base, key, map[string]any{"model": "vid/model", "prompt": "a cat", "seconds": "8", "size": "1280x720"})
	if resp, _ := getContent(t, h.base, key, v.ID, ""); resp.StatusCode != 409 {
		t.Fatalf("content before completion: %d", resp.StatusCode)
	}
	v = waitVideo(t, h.base, key, v.ID)
	if v.Status != "completed" || *v.Credits != 8*creditsPerVideoSecond || v.Seconds != "8" || v.Size != "1280x720" || v.ExpiresAt == nil {
		t.Fatalf("completed: %+v", v)
	}
	resp, file := getContent(t, h.base, key, v.ID, "")
	info, err := media.ProbeMP4(file)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "video/mp4" || err != nil || info.Seconds != 8 {
		t.Fatalf("content: %d %s %v %+v", resp.StatusCode, resp.Header.Get("Content-Type"), err, info)
	}
	if got := balance(t, h.base, key).Data; got.TotalCredits != credits-*v.Credits || got.Reserved != 0 {
		t.Fatalf("balance %+v after a job of %d credits", got, *v.Credits)
	}
	var gen struct {
		Data struct {
			Credits int64  `json:"credits"`
			Status  string `json:"status"`
		} `json:"data"`
	}
	if st := call(t, h.base, "GET", "/api/v1/generation?id="+v.ID, key, nil, &gen); st != 200 || gen.Data.Credits != *v.Credits {
		t.Fatalf("generation: %d %+v", st, gen)
	}

	t.Run("models", func(t *testing.T) {
		var ms struct {
			Data []struct {
				ID        string `json:"id"`
				Durations []int  `json:"supported_durations"`
				Pricing   struct {
					CreditsPerSecond int64 `json:"credits_per_second"`
				} `json:"pricing"`
			} `json:"data"`
		}
		// The four test models and the catalog's six (Sora 2 and Pro, Veo 3.1 and Fast, Kling, Hailuo).
		const videoModels = 4 + 6
		st := call(t, h.base, "GET", "/api/v1/videos/models", key, nil, &ms)
		i := slices.IndexFunc(ms.Data, func(m struct {
			ID        string `json:"id"`
			Durations []int  `json:"supported_durations"`
			Pricing   struct {
				CreditsPerSecond int64 `json:"credits_per_second"`
			} `json:"pricing"`
		}) bool {
			return m.ID == "vid/model"
		})
		if st != 200 || len(ms.Data) != videoModels || i < 0 || ms.Data[i].Pricing.CreditsPerSecond != creditsPerVideoSecond || len(ms.Data[i].Durations) != 2 {
			t.Fatalf("video models: %d %+v", st, ms)
		}
		var list struct{ Data []struct{ ID string } }
		if st := call(t, h.base, "GET", "/api/v1/models?output_modalities=video", key, nil, &list); st != 200 || len(list.Data) != videoModels {
			t.Fatalf("models of video output: %d %+v", st, list)
		}
	})
	t.Run("range", func(t *testing.T) {
		for _, c := range []struct {
			rng    string
			status int
			body   []byte
			cr     string
		}{
			{"bytes=0-99", 206, file[:100], fmt.Sprintf("bytes 0-99/%d", len(file))},
			{"bytes=100-", 206, file[100:], fmt.Sprintf("bytes 100-%d/%d", len(file)-1, len(file))},
			{"bytes=-10", 206, file[len(file)-10:], fmt.Sprintf("bytes %d-%d/%d", len(file)-10, len(file)-1, len(file))},
			{fmt.Sprintf("bytes=%d-", len(file)), 416, nil, fmt.Sprintf("bytes */%d", len(file))},
		} {
			resp, b := getContent(t, h.base, key, v.ID, c.rng)
			if resp.StatusCode != c.status || resp.Header.Get("Content-Range") != c.cr || (c.body != nil && !bytes.Equal(b, c.body)) {
				t.Fatalf("%s: %d %q %d bytes", c.rng, resp.StatusCode, resp.Header.Get("Content-Range"), len(b))
			}
		}
	})
	t.Run("another account", func(t *testing.T) {
		for _, p := range []string{"/api/v1/videos/" + v.ID, "/api/v1/videos/" + v.ID + "/content"} {
			var e apiError
			if st := call(t, h.base, "GET", p, other, nil, &e); st != 404 || e.Error.Code != "not_found" {
				t.Fatalf("%s: %d %+v", p, st, e)
			}
		}
	})
	t.Run("idempotency key", func(t *testing.T) {
		before := balance(t, h.base, key).Data.TotalCredits
		var ids []string
		once := map[string]string{"Idempotency-Key": "once-" + v.ID}
		for range 2 {
			var got videoView
			callHeader(t, h.base, "POST", "/api/v1/videos", key, once, `{"model":"vid/model","prompt":"same"}`, &got)
			ids = append(ids, got.ID)
		}
		if ids[0] != ids[1] || ids[0] == "" {
			t.Fatalf("ids %v", ids)
		}
		var e apiError
		if st := callHeader(t, h.base, "POST", "/api/v1/videos", key, once, `{"model":"vid/model","prompt":"another"}`, &e); st != 409 || e.Error.Code != "idempotency_conflict" {
			t.Fatalf("the key reused for another video: %d %+v", st, e)
		}
		done := waitVideo(t, h.base, key, ids[0])
		if after := balance(t, h.base, key).Data.TotalCredits; before-after != *done.Credits || *done.Credits != 4*creditsPerVideoSecond {
			t.Fatalf("debited %d for one job of %d", before-after, *done.Credits)
		}
	})
	t.Run("list and delete", func(t *testing.T) {
		var page struct {
			Data    []videoView `json:"data"`
			HasMore bool        `json:"has_more"`
			LastID  string      `json:"last_id"`
		}
		if st := call(t, h.base, "GET", "/api/v1/videos?limit=1", key, nil, &page); st != 200 || len(page.Data) != 1 || !page.HasMore {
			t.Fatalf("list: %d %+v", st, page)
		}
		first := page.Data[0].ID
		page.Data = nil
		if st := call(t, h.base, "GET", "/api/v1/videos?limit=5&after="+page.LastID, key, nil, &page); st != 200 || len(page.Data) != 1 || page.HasMore || page.Data[0].ID == first {
			t.Fatalf("second page: %d %+v", st, page)
		}
		if st := call(t, h.base, "DELETE", "/api/v1/videos/"+v.ID, key, nil, nil); st != 200 {
			t.Fatalf("delete: %d", st)
		}
		if resp, _ := getContent(t, h.base, key, v.ID, ""); resp.StatusCode != 404 {
			t.Fatalf("content after delete: %d", resp.StatusCode)
		}
	})
}

func TestVideoFailedCancelledAndBadFilesCostNothing(t *testing.T) {
	const credits = 50_000_000
	_, key := account(t, h.base, credits, nil)
	for _, c := range []struct{ prompt, code string }{
		{"[fail] a dog", "upstream_error"},
		{"[short] a dog", "invalid_video"},
	} {
		v := createVideo(t, h.base, key, map[string]any{"model": "vid/model", "prompt": c.prompt})
		v = waitVideo(t, h.base, key, v.ID)
		if v.Status != "failed" || v.Error == nil || v.Error.Code != c.code || *v.Credits != 0 {
			t.Fatalf("%s: %+v", c.prompt, v)
		}
	}
	v := createVideo(t, h.base, key, map[string]any{"model": "vid/model", "prompt": "[stuck] a dog"})
	if b := balance(t, h.base, key).Data; b.Reserved != 4*creditsPerVideoSecond {
		t.Fatalf("reserved %d while the job runs", b.Reserved)
	}
	if st := call(t, h.base, "DELETE", "/api/v1/videos/"+v.ID, key, nil, nil); st != 200 {
		t.Fatalf("cancel: %d", st)
	}
	v = waitVideo(t, h.base, key, v.ID)
	if v.Status != "failed" || v.Error.Code != "cancelled" || *v.Credits != 0 {
		t.Fatalf("cancelled: %+v", v)
	}
	v = createVideo(t, h.base, key, map[string]any{"model": "vid/model", "prompt": "[expire] a dog"})
	if v = waitVideo(t, h.base, key, v.ID); v.Status != "completed" {
		t.Fatalf("an expired link is renewed: %+v", v)
	}
	if b := balance(t, h.base, key).Data; b.TotalCredits != credits-*v.Credits || b.Reserved != 0 {
		t.Fatalf("balance %+v", b)
	}
}

func TestVideoBadInput(t *testing.T) {
	_, key := account(t, h.base, 50_000_000, nil)
	png := "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
	text := "data:image/png;base64,aGVsbG8gd29ybGQ="
	for _, c := range []struct {
		name  string
		body  map[string]any
		param string
	}{
		{"no prompt", map[string]any{"model": "vid/model"}, "prompt"},
		{"no model", map[string]any{"prompt": "x"}, "model"},
		{"duration", map[string]any{"model": "vid/model", "prompt": "x", "seconds": "5"}, "seconds"},
		{"openrouter duration", map[string]any{"model": "vid/model", "prompt": "x", "duration": 12}, "duration"},
		{"size", map[string]any{"model": "vid/model", "prompt": "x", "size": "1x1"}, "size"},
		{"resolution", map[string]any{"model": "vid/model", "prompt": "x", "resolution": "4K"}, "resolution"},
		{"aspect ratio", map[string]any{"model": "vid/model", "prompt": "x", "aspect_ratio": "1:7"}, "aspect_ratio"},
		{"not a video model", map[string]any{"model": "test/model", "prompt": "x"}, "model"},
		{"reference not an image", map[string]any{"model": "vid/model", "prompt": "x", "input_reference": text}, "input_reference"},
		{"frame not an image", map[string]any{"model": "vid/model", "prompt": "x", "frame_images": []any{map[string]any{"type": "image_url", "image_url": map[string]any{"url": text}}}}, "frame_images"},
		{"callback http", map[string]any{"model": "vid/model", "prompt": "x", "input_reference": png, "callback_url": "http://example.com/hook"}, "callback_url"},
		{"callback private", map[string]any{"model": "vid/model", "prompt": "x", "callback_url": "https://10.0.0.1/hook"}, "callback_url"},
		{"callback loopback", map[string]any{"model": "vid/model", "prompt": "x", "callback_url": "https://localhost/hook"}, "callback_url"},
	} {
		var e apiError
		if st := call(t, h.base, "POST", "/api/v1/videos", key, c.body, &e); st != 400 || e.Error.Param == nil || *e.Error.Param != c.param {
			t.Fatalf("%s: %d %+v", c.name, st, e)
		}
	}
	req, _ := http.NewRequest("POST", h.base+"/api/v1/videos", strings.NewReader("--x\r\nbroken"))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "multipart/form-data; boundary=x")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 400 {
		t.Fatalf("bad multipart: %d", resp.StatusCode)
	}
	if b := balance(t, h.base, key).Data; b.TotalCredits != 50_000_000 || b.Reserved != 0 {
		t.Fatalf("bad input touched the balance: %+v", b)
	}
	var list struct{ Data []videoView }
	if call(t, h.base, "GET", "/api/v1/videos", key, nil, &list); len(list.Data) != 0 {
		t.Fatalf("bad input made jobs: %+v", list.Data)
	}
}

func TestVideoMultipartWithReference(t *testing.T) {
	_, key := account(t, h.base, 50_000_000, nil)
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	_ = w.WriteField("model", "vid/model")
	_ = w.WriteField("prompt", "from a picture")
	_ = w.WriteField("seconds", "4")
	f, _ := w.CreateFormFile("input_reference", "ref.png")
	_, _ = f.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"))
	_ = w.Close()
	req, _ := http.NewRequest("POST", h.base+"/api/v1/videos", &b)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", w.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var v videoView
	_ = jsonDecode(resp.Body, &v)
	resp.Body.Close()
	if resp.StatusCode != 202 {
		t.Fatalf("multipart create: %d %+v", resp.StatusCode, v)
	}
	if v = waitVideo(t, h.base, key, v.ID); v.Status != "completed" {
		t.Fatalf("%+v", v)
	}
}

// Concurrent jobs against a balance, or a key ceiling, that affords two:
// never overspent.
func TestVideoConcurrentJobsNeverOverspend(t *testing.T) {
	const two = 9 * creditsPerVideoSecond // two 4-second jobs
	for _, c := range []struct {
		name    string
		credits int64
		key     map[string]any
		refused int
	}{
		{"balance", two, nil, 402},
		{"key ceiling", 100 * two, map[string]any{"name": "capped", "limit": two, "limit_reset": "month"}, 403},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, key := account(t, h.base, c.credits, c.key)
			tag := "overspend-" + strings.ReplaceAll(c.name, " ", "-")
			var mu sync.Mutex
			var ids []string
			var wg sync.WaitGroup
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					var v videoView
					if st := call(t, h.base, "POST", "/api/v1/videos", key, map[string]any{"model": "vid/model", "prompt": "[hold] " + tag}, &v); st == 202 {
						mu.Lock()
						ids = append(ids, v.ID)
						mu.Unlock()
					} else if st != c.refused {
						t.Errorf("create: %d", st)
					}
				}()
			}
			wg.Wait()
			if len(ids) != 2 {
				t.Fatalf("%d jobs accepted against a %s for 2", len(ids), c.name)
			}
			h.fake.ReleaseVideos(tag)
			var spent int64
			for _, id := range ids {
				spent += *waitVideo(t, h.base, key, id).Credits
			}
			var k keyView
			call(t, h.base, "GET", "/api/v1/key", key, nil, &k)
			if b := balance(t, h.base, key).Data; b.TotalCredits != c.credits-spent || b.Reserved != 0 || k.Data.Usage != spent || spent > two {
				t.Fatalf("balance %+v, key usage %d after spending %d", b, k.Data.Usage, spent)
			}
		})
	}
}

func TestVideoOpenAISDK(t *testing.T) {
	_, key := account(t, h.base, 50_000_000, nil)
	client := sdkClient(key)
	ctx := context.Background()
	v, err := client.Videos.New(ctx, openai.VideoNewParams{Prompt: "a boat", Model: "vid/model", Seconds: "4", Size: "720x1280"})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 60*time.Second, "the SDK's video", func() bool {
		v, err = client.Videos.Get(ctx, v.ID)
		return err == nil && v.Status == openai.VideoStatusCompleted
	})
	resp, err := client.Videos.DownloadContent(ctx, v.ID, openai.VideoDownloadContentParams{})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if info, err := media.ProbeMP4(data); err != nil || info.Seconds != 4 {
		t.Fatalf("downloaded: %v %+v", err, info)
	}
}

// kill -9 with 20 jobs in flight, then a restart: every job completes once,
// none is submitted twice, and the ledger reconciles.
func TestVideoJobsSurviveKill9(t *testing.T) {
	db := "sqlite://" + filepath.Join(t.TempDir(), "video.db")
	c := startChild(t, db)
	const credits = 200_000_000
	_, key := account(t, c.base, credits, nil)
	creates := h.fake.VideoCreates()
	tag := fmt.Sprintf("kill9-%d", time.Now().UnixNano())
	ids := make([]string, 20)
	for i := range ids {
		ids[i] = createVideo(t, c.base, key, map[string]any{"model": "vid/model", "prompt": "[hold] " + tag}).ID
	}
	// Killed at once: the last jobs may be in the middle of their submission;
	// they are sent again with the same Idempotency-Key, which the upstream joins.
	c.stop(t, syscall.SIGKILL)
	c = startChild(t, db)
	if b := balance(t, c.base, key).Data; b.Reserved != 20*4*creditsPerVideoSecond {
		t.Fatalf("after the restart %d credits are held, want the 20 jobs' holds", b.Reserved)
	}
	h.fake.ReleaseVideos(tag)
	var spent int64
	for _, id := range ids {
		v := waitVideo(t, c.base, key, id)
		if v.Status != "completed" || *v.Credits != 4*creditsPerVideoSecond {
			t.Fatalf("%s: %+v", id, v)
		}
		spent += *v.Credits
	}
	if n := h.fake.VideoCreates() - creates; n != 20 {
		t.Fatalf("%d upstream jobs for 20 videos", n)
	}
	if b := balance(t, c.base, key).Data; b.TotalCredits != credits-spent || b.Reserved != 0 {
		t.Fatalf("balance %+v after spending %d", b, spent)
	}
	var k keyView
	if call(t, c.base, "GET", "/api/v1/key", key, nil, &k); k.Data.Usage != spent {
		t.Fatalf("the key's usage is %d after spending %d", k.Data.Usage, spent)
	}
	assertReconciled(t, c.base)
	c.stop(t, syscall.SIGTERM)
}

// Through every adapter: create → poll → completed → a valid MP4 of the asked
// length → exactly one debit equal to the job's credits; the upstream's
// moderation fails the job at no cost.
func TestVideoThroughEveryAdapter(t *testing.T) {
	for _, c := range []struct {
		model   string
		seconds int
		filter  string // the error code of a [moderate] job; "": not tried
	}{
		{"vid/model", 8, ""},
		{"veo/model", 6, "content_filter"},
		{"kling/model", 10, "content_filter"},
		{"hailuo/model", 6, "content_filter"},
	} {
		t.Run(c.model, func(t *testing.T) {
			const credits = 100_000_000
			_, key := account(t, h.base, credits, nil)
			v := createVideo(t, h.base, key, map[string]any{"model": c.model, "prompt": "[expire] a lighthouse", "duration": c.seconds})
			v = waitVideo(t, h.base, key, v.ID)
			if v.Status != "completed" || *v.Credits != int64(c.seconds)*creditsPerVideoSecond {
				t.Fatalf("%+v", v)
			}
			resp, file := getContent(t, h.base, key, v.ID, "")
			if info, err := media.ProbeMP4(file); resp.StatusCode != 200 || err != nil || info.Seconds != float64(c.seconds) {
				t.Fatalf("content: %d %v %+v", resp.StatusCode, err, info)
			}
			if c.filter != "" {
				m := createVideo(t, h.base, key, map[string]any{"model": c.model, "prompt": "[moderate] a lighthouse"})
				if m = waitVideo(t, h.base, key, m.ID); m.Status != "failed" || m.Error.Code != c.filter || *m.Credits != 0 {
					t.Fatalf("moderated: %+v", m)
				}
			}
			if b := balance(t, h.base, key).Data; b.TotalCredits != credits-*v.Credits || b.Reserved != 0 {
				t.Fatalf("balance %+v after one job of %d", b, *v.Credits)
			}
		})
	}
}

// A job that does not finish within the time limit fails as expired, at no cost.
func TestVideoTimeLimitExpiresAStuckJob(t *testing.T) {
	raw, err := os.ReadFile(h.config)
	if err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(t.TempDir(), "short.yaml")
	if err := os.WriteFile(config, []byte(strings.Replace(string(raw), "timeout: 60s}", "timeout: 500ms}", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	c := startChildWith(t, "sqlite://"+filepath.Join(t.TempDir(), "limit.db"), config)
	const credits = 50_000_000
	_, key := account(t, c.base, credits, nil)
	v := createVideo(t, c.base, key, map[string]any{"model": "vid/model", "prompt": "[stuck] a tide"})
	if v = waitVideo(t, c.base, key, v.ID); v.Status != "failed" || v.Error.Code != "expired" || *v.Credits != 0 {
		t.Fatalf("%+v", v)
	}
	if b := balance(t, c.base, key).Data; b.TotalCredits != credits || b.Reserved != 0 {
		t.Fatalf("balance %+v", b)
	}
	c.stop(t, syscall.SIGTERM)
}

// A job reserved at one price multiplier of its upstream and finished after
// a restart whose configuration raised it is charged its hold, never more
// (the balance held no more for it), and the node says so: the difference
// goes unbilled loudly, as a chat's over-reservation does, not silently.
func TestVideoPricedAboveItsHoldIsChargedTheHoldLoudly(t *testing.T) {
	db := "sqlite://" + filepath.Join(t.TempDir(), "video-dearer.db")
	c := startChild(t, db)
	const credits = 100_000_000
	_, key := account(t, c.base, credits, nil)
	tag := fmt.Sprintf("dearer-%d", time.Now().UnixNano())
	id := createVideo(t, c.base, key, map[string]any{"model": "vid/model", "prompt": "[hold] " + tag}).ID
	c.stop(t, syscall.SIGKILL)

	cfg, err := os.ReadFile(h.config)
	if err != nil {
		t.Fatal(err)
	}
	dearer := strings.Replace(string(cfg), "- {name: fake, base_url: ", `- {name: fake, price_multiplier: "2", base_url: `, 1)
	if dearer == string(cfg) {
		t.Fatal("the test config has no upstream named fake to make dearer")
	}
	path := filepath.Join(t.TempDir(), "dearer.yaml")
	if err := os.WriteFile(path, []byte(dearer), 0o600); err != nil {
		t.Fatal(err)
	}
	c = startChildWith(t, db, path)
	h.fake.ReleaseVideos(tag)
	v := waitVideo(t, c.base, key, id)
	const hold = 4 * creditsPerVideoSecond // 4 s at the multiplier of 1 the job began with; 2 would make it twice that
	if v.Status != "completed" || *v.Credits != hold {
		t.Fatalf("the job: %+v, want completed and charged its hold, %d", v, hold)
	}
	if b := balance(t, c.base, key).Data; b.TotalCredits != credits-hold || b.Reserved != 0 {
		t.Fatalf("balance %+v, want %d left and nothing held", b, credits-hold)
	}
	c.stop(t, syscall.SIGTERM)
	log := c.log.String()
	if !strings.Contains(log, "above the job's hold") || !strings.Contains(log, id) {
		t.Fatalf("the node never said the job's price was above its hold; its log:\n%s", log)
	}
}
