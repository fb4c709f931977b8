// Package recordjson writes the JSON of the records the journal keeps (a
// ledger entry, a generation record and its parts) by hand, appending to a
// buffer: what encoding/json writes for them, field for field, without its
// reflection and its allocations on every settled call. encoding/json reads
// it back (the write-ahead log's replay, the store's columns).
package recordjson

import (
	"strconv"
	"time"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
)

// AppendEntry appends e as encoding/json writes a shlyuz.LedgerEntry.
func AppendEntry(b []byte, e *shlyuz.LedgerEntry) []byte {
	b = append(b, `{"id":`...)
	b = plainjson.AppendString(b, e.ID)
	b = append(b, `,"account_id":`...)
	b = plainjson.AppendString(b, e.AccountID)
	if e.KeyID != "" {
		b = append(b, `,"key_id":`...)
		b = plainjson.AppendString(b, e.KeyID)
	}
	b = append(b, `,"kind":`...)
	b = plainjson.AppendString(b, string(e.Kind))
	b = appendInt(b, `,"package_delta":`, e.PackageDelta)
	b = appendInt(b, `,"bought_delta":`, e.BoughtDelta)
	if !e.PackageExpiresAt.IsZero() {
		b = append(b, `,"package_expires_at":`...)
		b = appendTime(b, e.PackageExpiresAt)
	}
	b = appendInt(b, `,"epoch":`, e.Epoch)
	b = append(b, `,"created_at":`...)
	b = appendTime(b, e.CreatedAt)
	return append(b, '}')
}

// AppendGeneration appends g as encoding/json writes a shlyuz.Generation
// (without its account and key, which it leaves out).
func AppendGeneration(b []byte, g *shlyuz.Generation) []byte {
	b = append(b, `{"id":`...)
	b = plainjson.AppendString(b, g.ID)
	b = append(b, `,"model":`...)
	b = plainjson.AppendString(b, g.Model)
	b = append(b, `,"upstream":`...)
	b = plainjson.AppendString(b, g.Upstream)
	b = append(b, `,"attempts":`...)
	b = AppendAttempts(b, g.Attempts)
	b = appendBool(b, `,"streamed":`, g.Streamed)
	b = appendInt(b, `,"tokens_prompt":`, g.PromptTokens)
	b = appendInt(b, `,"tokens_completion":`, g.CompletionTokens)
	b = appendInt(b, `,"credits":`, g.Credits)
	b = appendInt(b, `,"latency_ms":`, g.LatencyMS)
	b = append(b, `,"status":`...)
	b = plainjson.AppendString(b, g.Status)
	b = append(b, `,"finish_reason":`...)
	b = plainjson.AppendString(b, g.FinishReason)
	b = append(b, `,"created_at":`...)
	b = appendTime(b, g.CreatedAt)
	b = appendBool(b, `,"usage_estimated":`, g.Estimated)
	b = appendDetails(b, ',', g.PromptDetails, g.CompletionDetails, g.CreditsDetails)
	if g.OverReserved {
		b = append(b, `,"over_reserved":true`...)
	}
	if len(g.DroppedParameters) > 0 {
		b = append(b, `,"dropped_parameters":`...)
		b = appendStrings(b, g.DroppedParameters)
	}
	if g.User != "" {
		b = append(b, `,"user":`...)
		b = plainjson.AppendString(b, g.User)
	}
	if g.Note != "" {
		b = append(b, `,"note":`...)
		b = plainjson.AppendString(b, g.Note)
	}
	return append(b, '}')
}

// AppendAttempts appends a as encoding/json writes a []shlyuz.Attempt.
func AppendAttempts(b []byte, a []shlyuz.Attempt) []byte {
	if a == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range a {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"upstream":`...)
		b = plainjson.AppendString(b, a[i].Upstream)
		if a[i].Model != "" {
			b = append(b, `,"model":`...)
			b = plainjson.AppendString(b, a[i].Model)
		}
		b = appendInt(b, `,"status":`, int64(a[i].Status))
		if a[i].Error != "" {
			b = append(b, `,"error":`...)
			b = plainjson.AppendString(b, a[i].Error)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// Billing is the generations.billing column's document: a generation's
// details, each left out when empty.
type Billing struct {
	Prompt       *shlyuz.PromptTokensDetails     `json:"prompt_tokens_details,omitempty"`
	Completion   *shlyuz.CompletionTokensDetails `json:"completion_tokens_details,omitempty"`
	Credits      *shlyuz.CreditsDetails          `json:"credits_details,omitempty"`
	OverReserved bool                            `json:"over_reserved,omitempty"`
	Note         string                          `json:"note,omitempty"`
	Dropped      []string                        `json:"dropped_parameters,omitempty"`
	User         string                          `json:"user,omitempty"`
}

// AppendBilling appends d as an object with the members of a Generation of
// the same names, in that order: prompt_tokens_details,
// completion_tokens_details, credits_details, over_reserved, note,
// dropped_parameters, user.
func AppendBilling(b []byte, d *Billing) []byte {
	start := len(b)
	b = appendDetails(b, '{', d.Prompt, d.Completion, d.Credits)
	sep := func() byte {
		if len(b) == start {
			return '{'
		}
		return ','
	}
	if d.OverReserved {
		b = append(b, sep())
		b = append(b, `"over_reserved":true`...)
	}
	if d.Note != "" {
		b = append(b, sep())
		b = append(b, `"note":`...)
		b = plainjson.AppendString(b, d.Note)
	}
	if len(d.Dropped) > 0 {
		b = append(b, sep())
		b = append(b, `"dropped_parameters":`...)
		b = appendStrings(b, d.Dropped)
	}
	if d.User != "" {
		b = append(b, sep())
		b = append(b, `"user":`...)
		b = plainjson.AppendString(b, d.User)
	}
	if len(b) == start {
		b = append(b, '{')
	}
	return append(b, '}')
}

// AppendDetails appends the details that are set as members, the first
// after first (a '{' or a ','), the others after a comma, as encoding/json
// writes them: the record's shape is a chat reply's usage's too.
func AppendDetails(b []byte, first byte, p *shlyuz.PromptTokensDetails, c *shlyuz.CompletionTokensDetails, cr *shlyuz.CreditsDetails) []byte {
	return appendDetails(b, first, p, c, cr)
}

// appendDetails is AppendDetails.
func appendDetails(b []byte, first byte, p *shlyuz.PromptTokensDetails, c *shlyuz.CompletionTokensDetails, cr *shlyuz.CreditsDetails) []byte {
	sep := first
	if p != nil {
		b = append(b, sep)
		sep = ','
		b = appendInt(b, `"prompt_tokens_details":{"cached_tokens":`, p.CachedTokens)
		b = appendNonZero(b, `,"cache_write_tokens":`, p.CacheWriteTokens)
		b = appendNonZero(b, `,"cache_write_1h_tokens":`, p.CacheWrite1hTokens)
		b = appendNonZero(b, `,"audio_tokens":`, p.AudioTokens)
		b = appendNonZero(b, `,"image_tokens":`, p.ImageTokens)
		b = append(b, '}')
	}
	if c != nil {
		b = append(b, sep)
		sep = ','
		b = appendInt(b, `"completion_tokens_details":{"reasoning_tokens":`, c.ReasoningTokens)
		b = appendNonZero(b, `,"audio_tokens":`, c.AudioTokens)
		b = appendNonZero(b, `,"image_tokens":`, c.ImageTokens)
		b = append(b, '}')
	}
	if cr != nil {
		b = append(b, sep)
		b = appendInt(b, `"credits_details":{"input":`, cr.Input)
		b = appendInt(b, `,"cached_input":`, cr.CachedInput)
		b = appendInt(b, `,"cache_write":`, cr.CacheWrite)
		b = appendInt(b, `,"output":`, cr.Output)
		b = appendInt(b, `,"reasoning":`, cr.Reasoning)
		b = appendNonZero(b, `,"audio_input":`, cr.AudioInput)
		b = appendNonZero(b, `,"audio_output":`, cr.AudioOutput)
		b = appendNonZero(b, `,"image_input":`, cr.ImageInput)
		b = appendNonZero(b, `,"image_output":`, cr.ImageOutput)
		b = appendNonZero(b, `,"request":`, cr.Request)
		b = appendNonZero(b, `,"web_search":`, cr.WebSearch)
		b = append(b, '}')
	}
	return b
}

func appendInt(b []byte, name string, v int64) []byte {
	return strconv.AppendInt(append(b, name...), v, 10)
}

func appendNonZero(b []byte, name string, v int64) []byte {
	if v == 0 {
		return b
	}
	return appendInt(b, name, v)
}

func appendBool(b []byte, name string, v bool) []byte {
	return strconv.AppendBool(append(b, name...), v)
}

func appendStrings(b []byte, s []string) []byte {
	b = append(b, '[')
	for i, v := range s {
		if i > 0 {
			b = append(b, ',')
		}
		b = plainjson.AppendString(b, v)
	}
	return append(b, ']')
}

// appendTime writes t as time.Time's MarshalJSON does (RFC 3339 with
// nanoseconds as needed).
func appendTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"')
}
