package actors

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/netguard"
)

// A job with a callback_url gets one signed POST when it ends:
//
//	{"type":"video.generation.completed"|"…failed"|"…cancelled"|"…expired",
//	 "created_at":…, "data":{id, object, model, status, progress, seconds, size, credits, error, completed_at, expires_at}}
//
// with X-Shlyuz-Idempotency-Key: <job id>-<state> and X-Shlyuz-Signature:
// t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" with the operator's
// callback secret>. It is tried three times; the address is checked again
// when the connection is made (only public addresses), so a name that
// resolves to a private one is refused.

// videoEvent is the callback's body.
type videoEvent struct {
	Type      string         `json:"type"`
	CreatedAt int64          `json:"created_at"`
	Data      videoEventData `json:"data"`
}

type videoEventData struct {
	ID          string             `json:"id"`
	Object      string             `json:"object"`
	Model       string             `json:"model"`
	Status      string             `json:"status"`
	Progress    int                `json:"progress"`
	Seconds     string             `json:"seconds"`
	Size        string             `json:"size"`
	Credits     shlyuz.Credits     `json:"credits"`
	Error       *shlyuz.VideoError `json:"error"`
	CompletedAt *int64             `json:"completed_at"`
	ExpiresAt   *int64             `json:"expires_at"`
}

func unixOf(t *time.Time) *int64 {
	if t == nil {
		return nil
	}
	v := t.Unix()
	return &v
}

// notifyVideo sends the job's callback, when it has one, in the background.
func (g *Gateway) notifyVideo(ctx context.Context, j shlyuz.VideoJob) {
	if j.CallbackURL == "" {
		return
	}
	v := g.video
	v.wg.Add(1)
	go func() {
		defer v.wg.Done()
		for try := 0; try < 3; try++ {
			err := sendVideoCallback(v.ctx, v.callbackClient, v.opts.CallbackSecret, j, g.now())
			if err == nil {
				return
			}
			v.log.Warn("video job: callback", "job", j.ID, "try", try+1, "err", err)
			select {
			case <-v.ctx.Done():
				return
			case <-time.After(time.Duration(1<<try) * time.Second):
			}
		}
	}()
}

// sendVideoCallback POSTs the signed event once.
func sendVideoCallback(ctx context.Context, client *http.Client, secret string, j shlyuz.VideoJob, now time.Time) error {
	kind := "failed"
	switch j.State {
	case shlyuz.VideoCompleted:
		kind = "completed"
	case shlyuz.VideoCancelled:
		kind = "cancelled"
	case shlyuz.VideoExpired:
		kind = "expired"
	}
	body, err := json.Marshal(videoEvent{Type: "video.generation." + kind, CreatedAt: now.Unix(), Data: videoEventData{
		ID: j.ID, Object: "video", Model: j.Model, Status: j.State.Public(), Progress: j.Progress,
		Seconds: strconv.Itoa(j.Request.Seconds), Size: j.Size, Credits: j.Credits, Error: j.Error,
		CompletedAt: unixOf(j.CompletedAt), ExpiresAt: unixOf(j.ExpiresAt)}})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, j.CallbackURL, bytes.NewReader(body))
	if err != nil {
		return err
	}
	t := strconv.FormatInt(now.Unix(), 10)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "shlyuz")
	req.Header.Set("X-Shlyuz-Idempotency-Key", j.ID+"-"+string(j.State))
	req.Header.Set("X-Shlyuz-Signature", "t="+t+",v1="+SignVideoCallback(secret, t, body))
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("callback answered HTTP %d", resp.StatusCode)
	}
	return nil
}

// SignVideoCallback is the v1 signature of a callback sent at t (unix seconds).
func SignVideoCallback(secret, t string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(t + "."))
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

// publicOnlyClient posts callbacks through netguard (public addresses only,
// judged when the connection is made), following no redirect.
func publicOnlyClient() *http.Client {
	c := netguard.Default.Client(15 * time.Second)
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}
