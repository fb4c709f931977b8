package shlyuz

// Usage is what a request consumed, as the upstream reported it, normalised
// once by its adapter to OpenAI's sense: PromptTokens counts every prompt
// token (fresh, read from a cache, written to one, audio, image) and
// CompletionTokens every output token (text, reasoning, audio, image). The
// detail counts say which of them were which; they are parts of the two
// totals, never added to them.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	TotalTokens      int64 `json:"total_tokens"`
	// Of PromptTokens: read from the provider's cache, written to it (all
	// writes, of which CacheWrite1hTokens for an hour), audio and images.
	CachedTokens       int64 `json:"cached_tokens,omitempty"`
	CacheWriteTokens   int64 `json:"cache_write_tokens,omitempty"`
	CacheWrite1hTokens int64 `json:"cache_write_1h_tokens,omitempty"`
	AudioPromptTokens  int64 `json:"audio_prompt_tokens,omitempty"`
	ImagePromptTokens  int64 `json:"image_prompt_tokens,omitempty"`
	// Of CompletionTokens: reasoning, audio and images.
	ReasoningTokens       int64 `json:"reasoning_tokens,omitempty"`
	AudioCompletionTokens int64 `json:"audio_completion_tokens,omitempty"`
	ImageCompletionTokens int64 `json:"image_completion_tokens,omitempty"`
	// WebSearches are the web searches run for the request, each billed
	// at the price's WebSearch fee: by the upstream (Anthropic's
	// server_tool_use.web_search_requests) or by the gateway (the web plugin).
	WebSearches int64 `json:"web_searches,omitempty"`
}

// Normalized fills TotalTokens when the upstream left it out and clamps the
// detail counts into their totals (an upstream's inconsistent report never
// bills a token twice).
func (u Usage) Normalized() Usage {
	u.PromptTokens, u.CompletionTokens = max(u.PromptTokens, 0), max(u.CompletionTokens, 0)
	rest := u.PromptTokens
	take := func(n *int64) {
		*n = min(max(*n, 0), rest)
		rest -= *n
	}
	take(&u.CachedTokens)
	take(&u.CacheWriteTokens)
	u.CacheWrite1hTokens = min(max(u.CacheWrite1hTokens, 0), u.CacheWriteTokens)
	take(&u.AudioPromptTokens)
	take(&u.ImagePromptTokens)
	rest = u.CompletionTokens
	take(&u.ReasoningTokens)
	take(&u.AudioCompletionTokens)
	take(&u.ImageCompletionTokens)
	u.WebSearches = max(u.WebSearches, 0)
	if sum := AddChecked(u.PromptTokens, u.CompletionTokens); u.TotalTokens < sum {
		u.TotalTokens = sum
	}
	return u
}

// PromptTokensDetails is OpenAI's usage.prompt_tokens_details: which of the
// prompt tokens were read from a cache, written to one, audio or images.
type PromptTokensDetails struct {
	CachedTokens       int64 `json:"cached_tokens"`
	CacheWriteTokens   int64 `json:"cache_write_tokens,omitempty"`
	CacheWrite1hTokens int64 `json:"cache_write_1h_tokens,omitempty"`
	AudioTokens        int64 `json:"audio_tokens,omitempty"`
	ImageTokens        int64 `json:"image_tokens,omitempty"`
}

// CompletionTokensDetails is OpenAI's usage.completion_tokens_details.
type CompletionTokensDetails struct {
	ReasoningTokens int64 `json:"reasoning_tokens"`
	AudioTokens     int64 `json:"audio_tokens,omitempty"`
	ImageTokens     int64 `json:"image_tokens,omitempty"`
}

// PromptDetails is the usage's prompt_tokens_details (always present, as OpenAI sends it).
func (u Usage) PromptDetails() *PromptTokensDetails {
	return &PromptTokensDetails{CachedTokens: u.CachedTokens, CacheWriteTokens: u.CacheWriteTokens,
		CacheWrite1hTokens: u.CacheWrite1hTokens, AudioTokens: u.AudioPromptTokens, ImageTokens: u.ImagePromptTokens}
}

// CompletionDetails is the usage's completion_tokens_details.
func (u Usage) CompletionDetails() *CompletionTokensDetails {
	return &CompletionTokensDetails{ReasoningTokens: u.ReasoningTokens, AudioTokens: u.AudioCompletionTokens, ImageTokens: u.ImageCompletionTokens}
}

// WithDetails is a usage of the given totals carrying the details (a stored generation's).
func WithDetails(prompt, completion int64, p *PromptTokensDetails, c *CompletionTokensDetails) Usage {
	u := Usage{PromptTokens: prompt, CompletionTokens: completion, TotalTokens: AddChecked(prompt, completion)}
	if p != nil {
		u.CachedTokens, u.CacheWriteTokens, u.CacheWrite1hTokens = p.CachedTokens, p.CacheWriteTokens, p.CacheWrite1hTokens
		u.AudioPromptTokens, u.ImagePromptTokens = p.AudioTokens, p.ImageTokens
	}
	if c != nil {
		u.ReasoningTokens, u.AudioCompletionTokens, u.ImageCompletionTokens = c.ReasoningTokens, c.AudioTokens, c.ImageTokens
	}
	return u
}
