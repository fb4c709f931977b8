package actors

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
)

// VideoOptions tune video jobs.
type VideoOptions struct {
	Blobs     shlyuz.BlobStore // where finished files are kept; required for video
	PollMin   time.Duration    // first pause between polls; default 2s
	PollMax   time.Duration    // the back-off's ceiling; default 30s
	Timeout   time.Duration    // a job not finished by then expires; default 1h
	Retention time.Duration    // how long a finished file is kept; default 7 days
	// CallbackSecret signs the callbacks (X-Shlyuz-Signature).
	CallbackSecret string
}

func (o VideoOptions) withDefaults() VideoOptions {
	if o.PollMin <= 0 {
		o.PollMin = 2 * time.Second
	}
	if o.PollMax < o.PollMin {
		o.PollMax = max(30*time.Second, o.PollMin)
	}
	if o.Timeout <= 0 {
		o.Timeout = time.Hour
	}
	if o.Retention <= 0 {
		o.Retention = 7 * 24 * time.Hour
	}
	return o
}

// videoRuntime is what the video jobs of this node share.
type videoRuntime struct {
	opts   VideoOptions
	ctx    context.Context // ends every runner at Stop
	cancel context.CancelFunc
	wg     sync.WaitGroup
	log    *slog.Logger
	// callbackClient posts the callbacks: public addresses only.
	callbackClient *http.Client
}

func newVideoRuntime(o VideoOptions, log *slog.Logger) *videoRuntime {
	ctx, cancel := context.WithCancel(context.Background())
	return &videoRuntime{opts: o.withDefaults(), ctx: ctx, cancel: cancel, log: log, callbackClient: publicOnlyClient()}
}

// stop ends the runners of this node (their jobs carry on after a restart).
func (v *videoRuntime) stop() {
	v.cancel()
	v.wg.Wait()
}

// VideoCall is a video generation as the HTTP layer validated it.
type VideoCall struct {
	KeyHash        string
	AccountID      string
	KeyID          string // the calling key: its Idempotency-Keys are its own
	Model          string // the catalog id
	IdempotencyKey string
	Request        shlyuz.VideoRequest // Model is filled in here
	Size           string
	CallbackURL    string
	Order          []string
	AllowFallbacks bool
}

// errVideoHandedOff ends a create's upstream slot: the job's actor talks to the upstream.
var errVideoHandedOff = fmt.Errorf("video job handed to its actor: %w", errNotThisBreaker)

// VideoWorst is the most a job of the model may cost at the catalog price.
func (g *Gateway) VideoWorst(m *shlyuz.PricedModel, seconds int) (perSecond, worst shlyuz.Credits) {
	perSecond = m.Video.CreditsPerSecond(g.Catalog().Pricing)
	return perSecond, perSecond * shlyuz.Credits(seconds)
}

// NewVideoID is a job id that sorts by creation time.
func NewVideoID(now time.Time) string {
	var r [6]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("video_%016x%s", now.UnixNano(), hex.EncodeToString(r[:]))
}

// CreateVideo reserves the job's worst case at the key and the account (402
// or 403 when it cannot), persists the job with its hold, and starts its
// actor. A repeated Idempotency-Key returns the first job and holds nothing
// more; the bool says it was a repeat.
func (g *Gateway) CreateVideo(ctx context.Context, c *VideoCall) (*shlyuz.VideoJob, bool, error) {
	if c.IdempotencyKey != "" {
		if j, err := g.store.VideoJobByIdempotencyKey(ctx, c.KeyID, c.IdempotencyKey); err == nil {
			if j.Model != c.Model || j.Request.Prompt != c.Request.Prompt || j.Request.Seconds != c.Request.Seconds || j.Size != c.Size {
				return nil, false, shlyuz.ErrConflict("idempotency_conflict", "The Idempotency-Key %q was used for another video (%s); use a new key.", c.IdempotencyKey, j.ID)
			}
			return &j, true, nil
		} else if !errors.Is(err, shlyuz.ErrNoRows) {
			return nil, false, shlyuz.ErrInternal(err)
		}
	}
	cat := g.Catalog()
	m, ok := cat.Get(c.Model)
	if !ok {
		return nil, false, cat.Missing(c.Model)
	}
	if m.Video == nil {
		return nil, false, shlyuz.ErrModelNotFound(c.Model)
	}
	now := g.now()
	perSecond, worst := g.VideoWorst(m, c.Request.Seconds)
	if worst <= 0 {
		return nil, false, shlyuz.ErrInternal(errMediaWorst)
	}
	id := NewVideoID(now)
	var job shlyuz.VideoJob
	cl := &call{g: g, fixed: worst, supports: func(u *Upstream) bool {
		_, ok := u.Provider.(shlyuz.VideoProvider)
		return ok
	}, c: &ChatCall{GenerationID: id, KeyHash: c.KeyHash, Models: []string{c.Model}, Order: c.Order,
		AllowFallbacks: c.AllowFallbacks, Started: now}}
	var dup *shlyuz.VideoJob
	err := cl.run(ctx, func(ctx context.Context, u *Upstream, req *shlyuz.UpstreamRequest) error {
		r := c.Request
		r.JobID, r.Model = id, req.UpstreamModel
		job = shlyuz.VideoJob{
			ID: id, AccountID: cl.accountID, KeyID: cl.keyID, KeyHash: c.KeyHash, IdempotencyKey: c.IdempotencyKey,
			Model: m.ID, Upstream: u.Config.Name, Request: r, Size: c.Size, State: shlyuz.VideoSubmitting,
			PerSecond: perSecond, Hold: cl.held, CallbackURL: c.CallbackURL, CreatedAt: now.UTC(),
			Deadline: now.Add(g.video.opts.Timeout).UTC(),
		}
		err := g.store.CreateVideoJob(ctx, job)
		if errors.Is(err, shlyuz.ErrDuplicate) { // a concurrent create with the same key won
			if j, e := g.store.VideoJobByIdempotencyKey(ctx, cl.keyID, c.IdempotencyKey); e == nil {
				dup = &j
			}
		}
		if err != nil {
			return shlyuz.ErrInternal(err)
		}
		return nil
	})
	if dup != nil {
		return dup, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	// The job's hold now lives in the store and the actors; the request's
	// share ends. Nothing reached the upstream yet: no outcome for its breaker.
	cl.release(errVideoHandedOff)
	g.calls.done(cl.accountID, id)
	g.inFlight.Add(-1)
	g.reserved.Add(-cl.held)
	if _, err := g.dir.Request(id, KindVideo, &videoWake{}, g.timeout); err != nil {
		g.log.Error("video job: activation", "job", id, "err", err) // resumed at the next start
	}
	return &job, false, nil
}

// VideoOwner is who asks for video jobs: an API key sees the jobs it made,
// the account's owner (KeyID "": the web area, the operator) sees every job
// of the account.
type VideoOwner struct {
	AccountID string
	KeyID     string
}

// owns reports whether the job is one the owner may see.
func (o VideoOwner) owns(j *shlyuz.VideoJob) bool {
	return j.AccountID == o.AccountID && (o.KeyID == "" || j.KeyID == o.KeyID)
}

// VideoJob is one of the owner's jobs; another key's or account's is not found.
func (g *Gateway) VideoJob(ctx context.Context, owner VideoOwner, id string) (*shlyuz.VideoJob, *shlyuz.Error) {
	j, err := g.store.VideoJob(ctx, id)
	if errors.Is(err, shlyuz.ErrNoRows) || (err == nil && !owner.owns(&j)) {
		return nil, shlyuz.ErrNotFound("Video " + id)
	}
	if err != nil {
		return nil, shlyuz.ErrInternal(err)
	}
	return &j, nil
}

// VideoJobs lists the owner's jobs, newest first, after the cursor.
func (g *Gateway) VideoJobs(ctx context.Context, owner VideoOwner, after string, limit int) ([]shlyuz.VideoJob, *shlyuz.Error) {
	js, err := g.store.VideoJobs(ctx, owner.AccountID, owner.KeyID, after, limit)
	if err != nil {
		return nil, shlyuz.ErrInternal(err)
	}
	return js, nil
}

// DeleteVideo cancels a running job (it costs nothing and its hold is
// released) or removes a finished job's file. It returns the job as it ended.
func (g *Gateway) DeleteVideo(ctx context.Context, owner VideoOwner, id string) (*shlyuz.VideoJob, *shlyuz.Error) {
	j, e := g.VideoJob(ctx, owner, id)
	if e != nil {
		return nil, e
	}
	if !j.State.Finished() || !j.Settled {
		if _, err := g.dir.Request(id, KindVideo, &videoCancel{}, 30*time.Second); err != nil {
			return nil, shlyuz.ErrInternal(err)
		}
		return g.VideoJob(ctx, owner, id)
	}
	if j.State == shlyuz.VideoCompleted {
		if err := g.purgeVideo(ctx, j); err != nil {
			return nil, shlyuz.ErrInternal(err)
		}
	}
	return j, nil
}

// purgeVideo removes a completed job's file and marks it purged.
func (g *Gateway) purgeVideo(ctx context.Context, j *shlyuz.VideoJob) error {
	if err := g.video.opts.Blobs.Delete(ctx, j.Blob); err != nil {
		return err
	}
	j.State = shlyuz.VideoPurged
	return g.store.UpdateVideoJob(ctx, *j)
}

// SweepVideos removes the files whose retention ended; it returns how many.
func (g *Gateway) SweepVideos(ctx context.Context) (int, error) {
	js, err := g.store.ExpiredVideoFiles(ctx, g.now(), 100)
	if err != nil {
		return 0, err
	}
	for i := range js {
		if err := g.purgeVideo(ctx, &js[i]); err != nil {
			return i, err
		}
	}
	return len(js), nil
}

// VideoCallbacks reports whether jobs may ask for a callback (a secret to sign them is set).
func (g *Gateway) VideoCallbacks() bool { return g.video.opts.CallbackSecret != "" }

// VideoBlobs is where finished files are kept.
func (g *Gateway) VideoBlobs() shlyuz.BlobStore { return g.video.opts.Blobs }

// ResumeVideos re-activates every job that still holds credits (after a
// restart, or when this node takes them over); each carries on from its last
// persisted state.
func (g *Gateway) ResumeVideos(ctx context.Context) error {
	js, err := g.store.UnsettledVideoJobs(ctx)
	if err != nil {
		return err
	}
	for _, j := range js {
		g.dir.Send(j.ID, KindVideo, &videoWake{})
	}
	return nil
}
