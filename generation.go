package shlyuz

import "time"

// Generation is the stored record of one model call, returned by GET /api/v1/generation.
type Generation struct {
	ID               string    `json:"id"`
	AccountID        string    `json:"-"`
	KeyID            string    `json:"-"`
	Model            string    `json:"model"`
	Upstream         string    `json:"upstream"`
	Attempts         []Attempt `json:"attempts"`
	Streamed         bool      `json:"streamed"`
	PromptTokens     int64     `json:"tokens_prompt"`
	CompletionTokens int64     `json:"tokens_completion"`
	Credits          Credits   `json:"credits"`
	LatencyMS        int64     `json:"latency_ms"`
	Status           string    `json:"status"` // completed, cancelled, failed
	FinishReason     string    `json:"finish_reason"`
	CreatedAt        time.Time `json:"created_at"`
	// Estimated: the upstream reported no usage, so the tokens (and the
	// charge) are the gateway's count: the prompt estimate plus the reply's.
	Estimated bool `json:"usage_estimated"`
	// The usage's details and how the charge adds up (nil on records made
	// before they were kept). OverReserved: the upstream reported more than
	// was reserved; its full price was charged, past the hold (docs/billing.md).
	PromptDetails     *PromptTokensDetails     `json:"prompt_tokens_details,omitempty"`
	CompletionDetails *CompletionTokensDetails `json:"completion_tokens_details,omitempty"`
	CreditsDetails    *CreditsDetails          `json:"credits_details,omitempty"`
	OverReserved      bool                     `json:"over_reserved,omitempty"`
	// DroppedParameters are the request's parameters the serving upstream
	// does not take: left out of its call, as OpenRouter leaves them.
	DroppedParameters []string `json:"dropped_parameters,omitempty"`
	// User is the client's end user (the request's "user"), for an app that
	// resells access to see its users' spend.
	User string `json:"user,omitempty"`
	// Note: the model was deprecated (when it retires, its successor), or
	// the retired model asked for was served by its successor.
	Note string `json:"note,omitempty"`
}

// Attempt is one upstream tried for a generation.
type Attempt struct {
	Upstream string `json:"upstream"`
	Model    string `json:"model,omitempty"`
	Status   int    `json:"status"`
	Error    string `json:"error,omitempty"`
}

// Generation statuses.
const (
	GenerationCompleted = "completed"
	GenerationCancelled = "cancelled"
	GenerationFailed    = "failed"
)
