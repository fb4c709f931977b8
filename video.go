package shlyuz

import (
	"context"
	"io"
	"time"
)

// VideoState is where a video job is in its life. Every change is persisted
// before it is acted on.
type VideoState string

// The video job's states: submitting → queued → in_progress → fetching →
// completed, and from any unfinished state failed, cancelled or expired;
// completed → purged once its file's retention ended.
const (
	VideoSubmitting VideoState = "submitting" // reserved; the upstream's job id not yet known
	VideoQueued     VideoState = "queued"
	VideoInProgress VideoState = "in_progress"
	VideoFetching   VideoState = "fetching" // the upstream finished; its file is being copied to our blob store
	VideoCompleted  VideoState = "completed"
	VideoFailed     VideoState = "failed"
	VideoCancelled  VideoState = "cancelled"
	VideoExpired    VideoState = "expired" // the job's time limit passed before it finished
	VideoPurged     VideoState = "purged"  // completed, then its file was removed (expired or deleted)
)

// Finished reports whether the job will not change any more (except purge).
func (s VideoState) Finished() bool {
	switch s {
	case VideoCompleted, VideoFailed, VideoCancelled, VideoExpired, VideoPurged:
		return true
	}
	return false
}

// Public is the status OpenAI's video object shows for the state.
func (s VideoState) Public() string {
	switch s {
	case VideoSubmitting, VideoQueued:
		return "queued"
	case VideoInProgress, VideoFetching:
		return "in_progress"
	case VideoCompleted, VideoPurged:
		return "completed"
	}
	return "failed"
}

// VideoError is why a job failed: code is upstream_error, content_filter,
// invalid_video, cancelled or expired.
type VideoError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// VideoRequest is a video generation as it goes to an upstream, normalized
// from OpenAI's and OpenRouter's vocabularies.
type VideoRequest struct {
	JobID          string `json:"job_id"` // ours; the idempotency key sent upstream where it has one
	Model          string `json:"model"`  // the model's name at the upstream
	Prompt         string `json:"prompt"`
	Seconds        int    `json:"seconds"`
	Size           string `json:"size,omitempty"` // "1280x720"
	Resolution     string `json:"resolution,omitempty"`
	AspectRatio    string `json:"aspect_ratio,omitempty"`
	InputReference []byte `json:"input_reference,omitempty"` // an image (first frame)
	InputMIME      string `json:"input_mime,omitempty"`
	GenerateAudio  *bool  `json:"generate_audio,omitempty"`
	Seed           *int64 `json:"seed,omitempty"`
}

// VideoStatus is what an upstream said about a job.
type VideoStatus struct {
	UpstreamID string
	State      VideoState    // VideoQueued, VideoInProgress, VideoCompleted or VideoFailed
	Progress   int           // 0–100; 0 when the upstream gives none
	PollAfter  time.Duration // the upstream's hint; 0: none
	URL        string        // where the finished file is, when the upstream names one
	Seconds    float64       // the produced duration, when the upstream reports it
	Error      *VideoError
}

// VideoProvider is the capability of an adapter that generates videos as
// asynchronous upstream jobs.
type VideoProvider interface {
	// SubmitVideo starts a job. Errors are *Error values as for Chat.
	SubmitVideo(ctx context.Context, req *VideoRequest) (VideoStatus, error)
	// PollVideo asks for the job's state.
	PollVideo(ctx context.Context, upstreamID string) (VideoStatus, error)
	// FetchVideo opens the finished file; st is the completed status.
	FetchVideo(ctx context.Context, st VideoStatus) (io.ReadCloser, error)
	// IdempotentSubmit reports whether submitting the same JobID twice makes
	// one upstream job (so a submission cut by a crash may be repeated).
	IdempotentSubmit() bool
}

// VideoSpec is what a video model accepts and costs (a catalog model's Video).
type VideoSpec struct {
	Durations      []int    `json:"durations" yaml:"durations"` // seconds
	DefaultSeconds int      `json:"default_seconds" yaml:"default_seconds"`
	Sizes          []string `json:"sizes" yaml:"sizes"` // "1280x720"
	DefaultSize    string   `json:"default_size" yaml:"default_size"`
	Resolutions    []string `json:"resolutions,omitempty" yaml:"resolutions"`
	AspectRatios   []string `json:"aspect_ratios,omitempty" yaml:"aspect_ratios"`
	// USDPerSecond is the upstream's price of one second of video.
	USDPerSecond Decimal `json:"usd_per_second" yaml:"usd_per_second"`
}

// CreditsPerSecond is a second of the model's video in credits under p,
// rounded up to a whole credit.
func (v *VideoSpec) CreditsPerSecond(p Pricing) Credits {
	return v.USDPerSecond.Mul(p.Rate).Mul(p.K).MulInt(CreditsPerRuble).Ceil()
}

// VideoJob is one video generation, from its reservation to its file's purge.
type VideoJob struct {
	ID             string       `json:"id"`
	AccountID      string       `json:"account_id"`
	KeyID          string       `json:"key_id"`
	KeyHash        string       `json:"key_hash"`
	IdempotencyKey string       `json:"idempotency_key,omitempty"`
	Model          string       `json:"model"` // the catalog id
	Upstream       string       `json:"upstream"`
	UpstreamID     string       `json:"upstream_id,omitempty"`
	Request        VideoRequest `json:"request"`
	Size           string       `json:"size"`
	State          VideoState   `json:"state"`
	Progress       int          `json:"progress"`
	PerSecond      Credits      `json:"per_second"` // the catalog price of a second, at create
	Hold           Credits      `json:"hold"`       // reserved at the key and the account until Settled
	Credits        Credits      `json:"credits"`    // the charge, once completed
	Settled        bool         `json:"settled"`    // the hold is gone: charged or released
	Error          *VideoError  `json:"error,omitempty"`
	ResultURL      string       `json:"result_url,omitempty"` // the upstream's file, until copied
	Blob           string       `json:"blob,omitempty"`       // the file's key in the blob store
	Bytes          int64        `json:"bytes,omitempty"`
	Duration       float64      `json:"duration,omitempty"` // of the stored file, seconds
	CallbackURL    string       `json:"callback_url,omitempty"`
	Submits        int          `json:"submits"` // submissions sent upstream
	CreatedAt      time.Time    `json:"created_at"`
	Deadline       time.Time    `json:"deadline"` // an unfinished job then expires
	CompletedAt    *time.Time   `json:"completed_at,omitempty"`
	ExpiresAt      *time.Time   `json:"expires_at,omitempty"` // the file's retention end
}

// VideoStore keeps video jobs. A job whose Settled is false holds Hold credits
// at its key and account: the account's actor counts it as reserved when it
// loads, and against the key's ceiling when it loads the key.
type VideoStore interface {
	// CreateVideoJob inserts a job; ErrDuplicate when its key already made a
	// job with its IdempotencyKey.
	CreateVideoJob(ctx context.Context, j VideoJob) error
	// UpdateVideoJob replaces a job's state.
	UpdateVideoJob(ctx context.Context, j VideoJob) error
	VideoJob(ctx context.Context, id string) (VideoJob, error)
	// VideoJobByIdempotencyKey is the job an API key made with the Idempotency-Key.
	VideoJobByIdempotencyKey(ctx context.Context, keyID, key string) (VideoJob, error)
	// VideoJobs lists an account's jobs, newest first, after the cursor (a job
	// id; "" from the start): those one API key made, or every key's for keyID "".
	VideoJobs(ctx context.Context, accountID, keyID, after string, limit int) ([]VideoJob, error)
	// UnsettledVideoJobs are the jobs still holding credits, to resume on start.
	UnsettledVideoJobs(ctx context.Context) ([]VideoJob, error)
	// VideoHolds are the unsettled jobs' holds of an account, or of a key, by job id.
	VideoHolds(ctx context.Context, accountID string) (map[string]Credits, error)
	VideoKeyHolds(ctx context.Context, keyID string) (map[string]Credits, error)
	// ExpiredVideoFiles are completed jobs whose retention ended before the instant.
	ExpiredVideoFiles(ctx context.Context, before time.Time, limit int) ([]VideoJob, error)
}

// BlobStore keeps media files (finished videos) by key.
type BlobStore interface {
	// Put stores r's bytes under key, replacing what was there; it returns their count.
	Put(ctx context.Context, key string, r io.Reader) (int64, error)
	// Get opens n bytes of the file from offset off (n < 0: to its end) and
	// returns the file's whole size; ErrNoRows when it is absent.
	Get(ctx context.Context, key string, off, n int64) (io.ReadCloser, int64, error)
	// Delete removes the file; removing an absent file is no error.
	Delete(ctx context.Context, key string) error
}
