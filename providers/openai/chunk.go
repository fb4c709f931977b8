package openai

import (
	"bytes"
	"encoding/json"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/jsonscan"
	"github.com/shlyuz/shlyuz/internal/plainjson"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// rewriter turns upstream chunks into the chunks the gateway sends on: our
// generation id and model id replace the upstream's, and the upstream's usage
// is taken out (the gateway writes the final usage chunk, with credits, itself).
type rewriter struct {
	id    []byte // JSON string: our generation id
	model []byte // JSON string: our public model id
	// clientUsage: the client asked for include_usage, so chunks keep a
	// "usage": null member as OpenAI sends it; otherwise the member is removed.
	clientUsage bool
}

func newRewriter(generationID, model string, clientUsage bool) *rewriter {
	return &rewriter{
		id:          plainjson.AppendString(nil, generationID),
		model:       plainjson.AppendString(nil, model),
		clientUsage: clientUsage,
	}
}

// edit replaces b[start:end] with repl.
type edit struct {
	start, end int
	repl       []byte
}

// chunkResult is what one upstream chunk says.
type chunkResult struct {
	data         []byte // rewritten chunk, nil when it only carried usage
	usage        *shlyuz.Usage
	finishReason string
	tokens       int64 // content-bearing deltas, an estimate of completion tokens
	err          *shlyuz.Error
}

var (
	nullBytes = []byte("null")
	noBytes   = []byte{}
)

// rewrite parses one chunk (the payload of an SSE data event).
func (r *rewriter) rewrite(b []byte) (res chunkResult) {
	it, ok := jsonscan.Members(b, 0)
	if !ok {
		res.err = upstream.Malformed("a stream chunk is not a JSON object")
		return res
	}
	var ebuf [4]edit
	edits := ebuf[:0]
	var (
		haveID      bool
		haveModel   bool
		members     int
		removed     int
		prevEnd     = -1 // end of the previous member's value
		pendingDrop = -1 // start of a first member to drop, waiting for the next member's start
		choicesVS   = -1
		choicesVE   int
		usageRaw    []byte
		xgroq       []byte
	)
	for {
		key, ks, vs, ve, ok := it.Next()
		if !ok {
			break
		}
		members++
		if pendingDrop >= 0 {
			edits = append(edits, edit{pendingDrop, ks, noBytes})
			pendingDrop = -1
		}
		switch string(key) {
		case "id":
			haveID = true
			edits = append(edits, edit{vs, ve, r.id})
		case "model":
			haveModel = true
			edits = append(edits, edit{vs, ve, r.model})
		case "choices":
			choicesVS, choicesVE = vs, ve
		case "usage":
			v := b[vs:ve]
			if !isNull(v) {
				usageRaw = v
			}
			switch {
			case !r.clientUsage:
				removed++
				if prevEnd >= 0 {
					edits = append(edits, edit{prevEnd, ve, noBytes})
				} else {
					pendingDrop = ks
				}
			case usageRaw != nil:
				edits = append(edits, edit{vs, ve, nullBytes})
			}
		case "error":
			if v := b[vs:ve]; !isNull(v) {
				res.err = upstreamStreamError(v)
				return res
			}
		case "x_groq":
			xgroq = b[vs:ve]
		}
		prevEnd = ve
	}
	if it.Err() != nil {
		res.err = upstream.Malformed("a stream chunk is not valid JSON")
		return res
	}
	end := it.End()
	if rest := jsonscan.SkipSpace(b, end); rest != len(b) {
		res.err = upstream.Malformed("a stream chunk has trailing bytes")
		return res
	}
	if pendingDrop >= 0 { // the dropped member was the only one
		closing := bytes.LastIndexByte(b[:end], '}')
		edits = append(edits, edit{pendingDrop, closing, noBytes})
	}

	if usageRaw == nil && xgroq != nil {
		usageRaw = groqUsage(xgroq)
	}
	if usageRaw != nil {
		u, err := parseUsage(usageRaw)
		if err != nil {
			res.err = upstream.Malformed("the usage of a stream chunk is not valid")
			return res
		}
		res.usage = &u
	}

	nChoices := 0
	if choicesVS >= 0 {
		var err error
		nChoices, res.finishReason, res.tokens, err = scanChoices(b[choicesVS:choicesVE])
		if err != nil {
			res.err = upstream.Malformed("the choices of a stream chunk are not valid")
			return res
		}
	}
	if nChoices == 0 && res.usage != nil {
		return res // a usage-only chunk: the gateway writes its own
	}

	// Stamp the ids the upstream left out, before the closing brace.
	var ins []byte
	if !haveID || !haveModel {
		closing := bytes.LastIndexByte(b[:end], '}')
		ins = make([]byte, 0, len(r.id)+len(r.model)+16)
		sep := members-removed > 0
		if !haveID {
			if sep {
				ins = append(ins, ',')
			}
			ins = append(ins, `"id":`...)
			ins = append(ins, r.id...)
			sep = true
		}
		if !haveModel {
			if sep {
				ins = append(ins, ',')
			}
			ins = append(ins, `"model":`...)
			ins = append(ins, r.model...)
		}
		edits = append(edits, edit{closing, closing, ins})
	}

	res.data = applyEdits(b, edits)
	return res
}

// applyEdits copies b with the edits applied in one allocation.
func applyEdits(b []byte, edits []edit) []byte {
	// Insertion sort by position: there are at most four.
	for i := 1; i < len(edits); i++ {
		for j := i; j > 0 && edits[j].start < edits[j-1].start; j-- {
			edits[j], edits[j-1] = edits[j-1], edits[j]
		}
	}
	n := len(b)
	for _, e := range edits {
		n += len(e.repl) - (e.end - e.start)
	}
	out := make([]byte, 0, n)
	pos := 0
	for _, e := range edits {
		out = append(out, b[pos:e.start]...)
		out = append(out, e.repl...)
		pos = e.end
	}
	return append(out, b[pos:]...)
}

// scanChoices reads the choices array of a chunk: how many choices it has, the
// first finish_reason set, and how many choices carry generated content.
func scanChoices(v []byte) (n int, finish string, tokens int64, err error) {
	if isNull(v) {
		return 0, "", 0, nil
	}
	arr, ok := jsonscan.Elements(v, 0)
	if !ok {
		return 0, "", 0, jsonscan.ErrMalformed
	}
	for {
		es, ee, ok := arr.Next()
		if !ok {
			break
		}
		n++
		obj, ok := jsonscan.Members(v[es:ee], 0)
		if !ok {
			continue
		}
		for {
			key, _, vs, ve, ok := obj.Next()
			if !ok {
				break
			}
			val := v[es+vs : es+ve]
			switch string(key) {
			case "finish_reason":
				if finish == "" && nonEmptyString(val) {
					finish = unquote(val)
				}
			case "delta", "message":
				if deltaHasContent(val) {
					tokens++
				}
			}
		}
	}
	return n, finish, tokens, arr.Err()
}

// deltaHasContent reports whether a delta carries generated text, reasoning or tool calls.
func deltaHasContent(d []byte) bool {
	it, ok := jsonscan.Members(d, 0)
	if !ok {
		return false
	}
	for {
		key, _, vs, ve, ok := it.Next()
		if !ok {
			return false
		}
		v := d[vs:ve]
		switch string(key) {
		case "content", "reasoning_content", "reasoning", "refusal":
			if nonEmptyString(v) {
				return true
			}
		case "tool_calls", "function_call":
			if nonEmptyArray(v) || (len(v) > 2 && v[0] == '{') {
				return true
			}
		}
	}
}

// unquote decodes a JSON string value, taking the fast path when it has no escapes.
func unquote(v []byte) string {
	if bytes.IndexByte(v, '\\') < 0 {
		return string(v[1 : len(v)-1])
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// wireUsage is OpenAI's usage object (prompt_tokens and completion_tokens
// include their details), with OpenRouter's cache_write_tokens and
// DeepSeek's cache field. The details are values, not pointers: absent
// details read as zeros, which is what usage makes of them, and decoding
// them allocates nothing.
type wireUsage struct {
	PromptTokens            int64                 `json:"prompt_tokens"`
	CompletionTokens        int64                 `json:"completion_tokens"`
	TotalTokens             int64                 `json:"total_tokens"`
	PromptTokensDetails     wirePromptDetails     `json:"prompt_tokens_details"`
	CompletionTokensDetails wireCompletionDetails `json:"completion_tokens_details"`
	PromptCacheHitTokens    int64                 `json:"prompt_cache_hit_tokens"` // DeepSeek
}

type wirePromptDetails struct {
	CachedTokens     int64 `json:"cached_tokens"`
	CacheWriteTokens int64 `json:"cache_write_tokens"`
	AudioTokens      int64 `json:"audio_tokens"`
	ImageTokens      int64 `json:"image_tokens"`
}

type wireCompletionDetails struct {
	ReasoningTokens int64 `json:"reasoning_tokens"`
	AudioTokens     int64 `json:"audio_tokens"`
	ImageTokens     int64 `json:"image_tokens"`
}

func (w *wireUsage) usage() shlyuz.Usage {
	u := shlyuz.Usage{
		PromptTokens:     w.PromptTokens,
		CompletionTokens: w.CompletionTokens,
		TotalTokens:      w.TotalTokens,
		CachedTokens:     w.PromptCacheHitTokens,
	}
	d := &w.PromptTokensDetails
	if d.CachedTokens > 0 {
		u.CachedTokens = d.CachedTokens
	}
	u.CacheWriteTokens, u.AudioPromptTokens, u.ImagePromptTokens = d.CacheWriteTokens, d.AudioTokens, d.ImageTokens
	c := &w.CompletionTokensDetails
	u.ReasoningTokens, u.AudioCompletionTokens, u.ImageCompletionTokens = c.ReasoningTokens, c.AudioTokens, c.ImageTokens
	return u.Normalized()
}

func parseUsage(raw []byte) (shlyuz.Usage, error) {
	var w wireUsage
	if readUsage(raw, &w) {
		return w.usage(), nil
	}
	slow := new(wireUsage) // encoding/json decides; a target of its own keeps w on the stack
	if err := json.Unmarshal(raw, slow); err != nil {
		return shlyuz.Usage{}, err
	}
	return slow.usage(), nil
}

// groqUsage finds usage in Groq's x_groq extension, where older Groq streams put it.
func groqUsage(x []byte) []byte {
	it, ok := jsonscan.Members(x, 0)
	if !ok {
		return nil
	}
	for {
		key, _, vs, ve, ok := it.Next()
		if !ok {
			return nil
		}
		if string(key) == "usage" && !isNull(x[vs:ve]) {
			return x[vs:ve]
		}
	}
}
