package actors

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/media"
)

// maxVideoBytes bounds a downloaded file.
const maxVideoBytes = 1 << 30

// videoRun runs one job from its persisted state to its settlement. Every
// change of state is persisted before the next step acts on it, so a restart
// carries on from the last one: a job with an upstream id polls, one that was
// being submitted is submitted again only where the upstream makes that
// idempotent (else it fails at no cost), and a finished job that was not yet
// settled settles (a charge already committed is found, not made twice).
type videoRun struct {
	g          *Gateway
	ctx        context.Context
	stop       <-chan struct{}
	job        shlyuz.VideoJob
	up         *Upstream
	vp         shlyuz.VideoProvider
	wait       time.Duration
	fetchFails int
}

func (g *Gateway) runVideo(ctx context.Context, id string, stop <-chan struct{}) {
	r := &videoRun{g: g, ctx: ctx, stop: stop, wait: g.video.opts.PollMin}
	for {
		j, err := g.store.VideoJob(ctx, id)
		if err == nil {
			r.job = j
			break
		}
		g.video.log.Error("video job: load", "job", id, "err", err)
		if !r.sleep(0) {
			return
		}
	}
	if u, ok := g.upstreams[r.job.Upstream]; ok {
		r.up = u
		r.vp, _ = u.Provider.(shlyuz.VideoProvider)
	}
	r.run()
}

func (r *videoRun) run() {
	for !r.job.Settled {
		if r.ctx.Err() != nil {
			return
		}
		if r.job.State.Finished() {
			if !r.settle() && !r.sleep(0) {
				return
			}
			continue
		}
		select {
		case <-r.stop:
			r.end(shlyuz.VideoCancelled, "cancelled", "The job was cancelled; nothing is charged.")
			continue
		default:
		}
		if r.vp == nil {
			r.end(shlyuz.VideoFailed, "upstream_error", fmt.Sprintf("The upstream %q no longer serves videos.", r.job.Upstream))
			continue
		}
		if !r.g.now().Before(r.job.Deadline) {
			r.end(shlyuz.VideoExpired, "expired", "The job did not finish in time; nothing is charged.")
			continue
		}
		var hint time.Duration
		switch r.job.State {
		case shlyuz.VideoSubmitting:
			hint = r.submit()
		case shlyuz.VideoQueued, shlyuz.VideoInProgress:
			hint = r.poll()
		case shlyuz.VideoFetching:
			if r.fetch() {
				continue
			}
		}
		if r.job.State.Finished() || r.job.State == shlyuz.VideoFetching {
			continue
		}
		if !r.sleep(hint) {
			return
		}
	}
}

// sleep waits the next back-off pause (the upstream's hint when it gave one),
// with ±20% jitter; false when the gateway is stopping.
func (r *videoRun) sleep(hint time.Duration) bool {
	o := r.g.video.opts
	d := r.wait
	r.wait = min(r.wait*2, o.PollMax)
	if hint > 0 {
		d = min(max(hint, o.PollMin), o.PollMax)
	}
	d = time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
	if left := time.Until(r.job.Deadline); !r.job.State.Finished() && left < d {
		d = max(left, 0)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.ctx.Done():
		return false
	case <-r.stop:
		return true
	case <-t.C:
		return true
	}
}

// save persists next as the job's state; on a failure the state is unchanged.
func (r *videoRun) save(next shlyuz.VideoJob) bool {
	if err := r.g.store.UpdateVideoJob(r.ctx, next); err != nil {
		r.g.video.log.Error("video job: save", "job", next.ID, "err", err)
		return false
	}
	r.job = next
	return true
}

// end finishes an unsettled job without a file: it costs nothing.
func (r *videoRun) end(state shlyuz.VideoState, code, msg string) {
	next := r.job
	next.State, next.Error, next.Credits = state, &shlyuz.VideoError{Code: code, Message: msg}, 0
	r.save(next)
}

// permanent reports whether an upstream error will not go away by retrying.
func permanent(err error) bool {
	e := shlyuz.AsError(err)
	return e.Status >= 400 && e.Status < 500 && e.Status != 408 && e.Status != 429
}

func upstreamMessage(err error) string { return shlyuz.AsError(err).Message }

// failCode is the job's error code for an upstream's refusal.
func failCode(err error) string {
	if shlyuz.AsError(err).Code == "content_policy" {
		return "content_filter"
	}
	return "upstream_error"
}

// submit sends the job upstream. The attempt is persisted first, so a crash
// mid-submission is known after a restart.
func (r *videoRun) submit() time.Duration {
	if r.job.Submits > 0 && !r.vp.IdempotentSubmit() {
		r.end(shlyuz.VideoFailed, "upstream_error", "The submission to the upstream was interrupted; nothing is charged.")
		return 0
	}
	next := r.job
	next.Submits++
	if !r.save(next) {
		return 0
	}
	ctx, cancel := context.WithTimeout(r.ctx, r.up.Config.Timeout)
	defer cancel()
	st, err := r.vp.SubmitVideo(ctx, &r.job.Request)
	if err != nil {
		if r.ctx.Err() != nil {
			return 0
		}
		if permanent(err) || !r.vp.IdempotentSubmit() {
			r.end(shlyuz.VideoFailed, failCode(err), upstreamMessage(err))
		}
		return 0
	}
	next = r.job
	next.UpstreamID = st.UpstreamID
	r.apply(&next, st)
	r.save(next)
	return st.PollAfter
}

// apply takes an upstream status into next (a completed job goes to fetching).
func (r *videoRun) apply(next *shlyuz.VideoJob, st shlyuz.VideoStatus) {
	switch st.State {
	case shlyuz.VideoCompleted:
		next.State, next.ResultURL, next.Progress = shlyuz.VideoFetching, st.URL, 99
	case shlyuz.VideoFailed:
		next.State = shlyuz.VideoFailed
		next.Error = st.Error
		if next.Error == nil {
			next.Error = &shlyuz.VideoError{Code: "upstream_error", Message: "The upstream failed the job; nothing is charged."}
		}
	case shlyuz.VideoInProgress:
		next.State = shlyuz.VideoInProgress
		next.Progress = st.Progress
		if next.Progress <= 0 || next.Progress > 95 { // none given: grow with the polls
			next.Progress = min(95, max(next.Progress, r.job.Progress+5))
		}
	default:
		next.State = shlyuz.VideoQueued
	}
}

// poll asks the upstream for the job's state and persists any change.
func (r *videoRun) poll() time.Duration {
	ctx, cancel := context.WithTimeout(r.ctx, r.up.Config.Timeout)
	defer cancel()
	st, err := r.vp.PollVideo(ctx, r.job.UpstreamID)
	if err != nil {
		if r.ctx.Err() == nil && permanent(err) {
			r.end(shlyuz.VideoFailed, failCode(err), upstreamMessage(err))
		}
		return 0
	}
	next := r.job
	r.apply(&next, st)
	if next.State != r.job.State || next.Progress != r.job.Progress {
		r.save(next)
	}
	return st.PollAfter
}

// fetch copies the finished file into the blob store and checks it is an MP4
// of roughly the asked duration; then the job is completed with its charge.
// It returns false when the next step should wait.
func (r *videoRun) fetch() bool {
	ctx, cancel := context.WithTimeout(r.ctx, 10*r.up.Config.Timeout)
	defer cancel()
	data, err := r.download(ctx)
	if err != nil {
		if r.ctx.Err() != nil {
			return false
		}
		r.fetchFails++
		if r.fetchFails >= 3 {
			r.end(shlyuz.VideoFailed, "upstream_error", "The finished file could not be downloaded: "+upstreamMessage(err))
			return true
		}
		next := r.job // poll again: an expired link is renewed by the upstream's status
		next.State = shlyuz.VideoInProgress
		r.save(next)
		return false
	}
	asked := float64(r.job.Request.Seconds)
	info, err := media.ProbeMP4(data)
	if err == nil && (info.Seconds < asked/2 || info.Seconds > asked*1.5+1) {
		err = fmt.Errorf("the file lasts %.2f s, %.0f s were asked", info.Seconds, asked)
	}
	if err != nil {
		r.end(shlyuz.VideoFailed, "invalid_video", "The upstream's file is not a valid video ("+err.Error()+"); nothing is charged.")
		return true
	}
	key := r.job.ID + ".mp4"
	n, err := r.g.video.opts.Blobs.Put(ctx, key, bytes.NewReader(data))
	if err != nil {
		r.g.video.log.Error("video job: store the file", "job", r.job.ID, "err", err)
		return false
	}
	seconds := min(int64(math.Ceil(info.Seconds-0.05)), int64(r.job.Request.Seconds)) // billed: what was produced, never above what was asked
	now := r.g.now().UTC()
	expires := now.Add(r.g.video.opts.Retention)
	next := r.job
	next.State, next.Progress, next.Blob, next.Bytes, next.Duration = shlyuz.VideoCompleted, 100, key, n, info.Seconds
	price := scaleCredits(shlyuz.MulChecked(r.job.PerSecond, seconds), r.up.Config.PriceMultiplier)
	next.Credits = min(price, r.job.Hold)
	if price > r.job.Hold {
		// The hold was the worst case at the upstreams' multipliers when the
		// job began; a configuration loaded since (a restart) raised the
		// serving upstream's. The charge never exceeds the hold, so the
		// difference goes unbilled: said loudly, as a chat's over-reservation is.
		r.g.video.log.Warn("video job: the upstream's price is above the job's hold (its multiplier grew since the job began): charged the hold",
			"job", r.job.ID, "model", r.job.Model, "upstream", r.up.Config.Name, "price", price, "held", r.job.Hold, "seconds", seconds)
	}
	next.CompletedAt, next.ExpiresAt = &now, &expires
	return r.save(next)
}

func (r *videoRun) download(ctx context.Context) ([]byte, error) {
	rc, err := r.vp.FetchVideo(ctx, shlyuz.VideoStatus{UpstreamID: r.job.UpstreamID, URL: r.job.ResultURL})
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxVideoBytes+1))
	if err != nil {
		return nil, shlyuz.ErrUpstream("The file's download broke off: %v", err)
	}
	if len(data) > maxVideoBytes {
		return nil, shlyuz.ErrUpstream("The file is larger than %d bytes.", maxVideoBytes)
	}
	return data, nil
}

// settle charges a completed job (durably, once) or releases a failed one's
// hold, then marks the job settled. It returns false when it must be retried.
func (r *videoRun) settle() bool {
	j, g, now := r.job, r.g, r.g.now()
	gen := &shlyuz.Generation{ID: j.ID, AccountID: j.AccountID, KeyID: j.KeyID, Model: j.Model, Upstream: j.Upstream,
		Credits: j.Credits, LatencyMS: now.Sub(j.CreatedAt).Milliseconds(), Status: shlyuz.GenerationCompleted,
		FinishReason: "stop", CreatedAt: now}
	next := j
	if j.State == shlyuz.VideoCompleted || j.State == shlyuz.VideoPurged {
		res, err := g.dir.Request(j.AccountID, KindAccount, &acctSettleVideo{GenID: j.ID, KeyID: j.KeyID, Amount: j.Credits, Generation: gen, Now: now}, g.timeout)
		if err != nil {
			g.video.log.Error("video job: settle", "job", j.ID, "err", err)
			return false
		}
		s := res.(*acctVideoSettled)
		if s.Err != nil {
			g.video.log.Error("video job: settle", "job", j.ID, "err", s.Err)
			return false
		}
		next.Credits = s.Charged
	} else {
		gen.Credits, gen.Status, gen.FinishReason = 0, shlyuz.GenerationFailed, "error"
		if j.State == shlyuz.VideoCancelled {
			gen.Status, gen.FinishReason = shlyuz.GenerationCancelled, "cancelled"
		}
		g.dir.Send(j.AccountID, KindAccount, &acctSettle{GenID: j.ID, KeyID: j.KeyID, Generation: gen, Now: now})
	}
	next.Settled = true
	if !r.save(next) {
		return false
	}
	r.g.notifyVideo(r.ctx, next)
	return true
}
