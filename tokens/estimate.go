package tokens

import (
	"bytes"
	"encoding/json"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/jsonscan"
)

// PromptEstimate is what the gateway guesses of a prompt's size before the
// upstream counts it: Reserve is a safe upper bound used to reserve credits,
// Likely is used to bill a stream that was cut before the upstream reported usage.
type PromptEstimate struct {
	Reserve int64
	Likely  int64
	Images  int64       // image (and other media) parts, each counted ImageTokens in Reserve; see ReserveFor
	Media   *MediaParts // the media parts as measured (media_tokens.go), counted by ReserveFor
	// Saved is what the word table (wordSavings) took off Reserve: a
	// tokenizer the table is not proven against is held to Reserve + Saved,
	// a token a byte (ReserveFor).
	Saved int64
	// Preamble is the tool-use instructions counted in Reserve for a
	// request with definitions (definitionsPreamble, the most any maker
	// adds): ReserveFor keeps of it what the model's maker adds.
	Preamble int64
}

// ImageTokens is what one image part is assumed to cost when reserving.
const ImageTokens = 1_600

// EstimateCompletion counts the completion tokens of a finished reply's OpenAI
// choices array when the upstream reported none: a token per four bytes of
// text content, refusals and tool-call arguments (rounded up), at least one
// per choice that said anything.
func EstimateCompletion(choices json.RawMessage) int64 {
	var cs []struct {
		Message struct {
			Content   json.RawMessage `json:"content"`
			Refusal   json.RawMessage `json:"refusal"`
			ToolCalls []struct {
				Function struct {
					Name      json.RawMessage `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"message"`
	}
	if json.Unmarshal(choices, &cs) != nil {
		return 0
	}
	var tokens int64
	for _, c := range cs {
		var b int64
		b += textBytes(c.Message.Content) + textBytes(c.Message.Refusal)
		for _, tc := range c.Message.ToolCalls {
			b += textBytes(tc.Function.Name) + textBytes(tc.Function.Arguments)
		}
		if b > 0 {
			tokens += (b + 3) / 4
		}
	}
	return tokens
}

// textBytes is the size of a JSON string's text, or of an array of text parts.
func textBytes(v json.RawMessage) int64 {
	switch {
	case len(v) == 0 || v[0] == 'n':
		return 0
	case v[0] == '"':
		return int64(max(0, len(v)-2))
	case v[0] == '[':
		var parts []estimatePart
		if json.Unmarshal(v, &parts) != nil {
			return 0
		}
		var n int64
		for _, p := range parts {
			n += textBytes(p.Text)
		}
		return n
	}
	return 0
}

type estimateMessage struct {
	Content    json.RawMessage `json:"content"`
	ToolCalls  json.RawMessage `json:"tool_calls"`
	ToolCallID json.RawMessage `json:"tool_call_id"`
}

// estimateCall is a tool call of an assistant message: its id, name and
// arguments are prompt text too (an agent's history carries whole patches
// in its calls' arguments).
type estimateCall struct {
	ID       json.RawMessage `json:"id"`
	Function struct {
		Name      json.RawMessage `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

type estimatePart struct {
	Type string          `json:"type"`
	Text json.RawMessage `json:"text"` // its length is enough: no need to unescape it
}

// EstimatePrompt guesses the prompt tokens of an OpenAI messages array: the
// text by the kind of its characters (textTokens), a fixed cost per image part
// and a few tokens per message. It walks the array without decoding it
// (estimate_scan.go); what the walk cannot judge as encoding/json would,
// encoding/json decodes, with the same result and the same errors.
func EstimatePrompt(messages json.RawMessage) (PromptEstimate, error) {
	var w promptWalk
	if end, err := walkArray(messages, 0, w.message); err == nil && jsonscan.SkipSpace(messages, end) == len(messages) {
		return w.estimate(), nil
	}
	if v := jsonscan.SkipSpace(messages, 0); v+4 <= len(messages) && string(messages[v:v+4]) == "null" && jsonscan.SkipSpace(messages, v+4) == len(messages) {
		return promptWalk{}.estimate(), nil // a null array is an empty one, as encoding/json reads it
	}
	return estimatePromptJSON(messages)
}

// promptWalk adds up a messages array as EstimatePrompt walks it.
type promptWalk struct {
	text             PromptEstimate
	images, overhead int64
}

func (w promptWalk) estimate() PromptEstimate {
	return PromptEstimate{
		Reserve: w.text.Reserve + w.images*ImageTokens + w.overhead + 16,
		Saved:   w.text.Saved,
		Likely:  max(1, w.text.Likely+w.images*85+w.overhead),
		Images:  w.images,
	}
}

func (w *promptWalk) add(lit []byte) {
	r, l, s := textTokensSaved(lit)
	w.text.Reserve += r
	w.text.Likely += l
	w.text.Saved += s
}

// addString adds v when it is a string literal (a tool call's id, name or
// arguments; any other value counts nothing).
func (w *promptWalk) addString(v []byte) {
	if len(v) > 0 && v[0] == '"' {
		w.add(v)
	}
}

// addCount adds a count taken as a string was read.
func (w *promptWalk) addCount(e PromptEstimate) {
	w.text.Reserve += e.Reserve
	w.text.Likely += e.Likely
	w.text.Saved += e.Saved
}

// message reads one message at b[vs]: a null or an object whose content is
// absent, null, a string or an array of parts; it returns where it ends.
func (w *promptWalk) message(b []byte, vs int) (int, error) {
	w.overhead += 4
	switch b[vs] {
	case 'n':
		return skipNull(b, vs)
	case '{':
	default:
		return 0, errWalk
	}
	var content []byte
	var text, callID, calls PromptEstimate // content's count when a string; tool_call_id's; tool_calls'
	ve, err := walkMembers(b, vs, func(key []byte, s int) (int, error) {
		if is, err := keyIs(key, "tool_calls"); err != nil || is {
			if err != nil {
				return 0, err
			}
			calls = PromptEstimate{} // the last one wins, as in encoding/json
			return toolCalls(b, s, &calls)
		}
		if e, is, err := countMember(key, "tool_call_id", b, s, &callID); is {
			return e, err
		}
		is, err := keyIs(key, "content")
		if err != nil {
			return 0, err
		}
		e, err := countValue(b, s, is, &text)
		if err == nil && is {
			content = b[s:e] // the last one wins, as in encoding/json
		}
		return e, err
	})
	if err != nil {
		return 0, err
	}
	w.addCount(callID)
	w.addCount(calls)
	switch {
	case len(content) == 0 || content[0] == 'n':
		return ve, nil
	case content[0] == '"':
		w.addCount(text)
		return ve, nil
	}
	if _, err = walkArray(content, 0, w.part); err != nil {
		return 0, err
	}
	return ve, nil
}

// part reads one part of a content array at b[vs]: text counts its text,
// any other type (or none) an image; it returns where the part ends.
func (w *promptWalk) part(b []byte, vs int) (int, error) {
	switch b[vs] {
	case 'n':
		w.images++
		return skipNull(b, vs)
	case '{':
	default:
		return 0, errWalk
	}
	var typ []byte
	var text PromptEstimate // the text's count: 0 unless it is a string
	ve, err := walkMembers(b, vs, func(key []byte, s int) (int, error) {
		if is, err := keyIs(key, "type"); err != nil || is {
			if err != nil {
				return 0, err
			}
			e, err := jsonscan.SkipValue(b, s)
			if err != nil {
				return 0, errWalk
			}
			switch val := b[s:e]; {
			case val[0] == '"' && bytes.IndexByte(val, '\\') < 0:
				typ = val
			case val[0] != 'n': // null leaves a string as it was; an escape or another type is for encoding/json
				return 0, errWalk
			}
			return e, nil
		}
		if e, is, err := countMember(key, "text", b, s, &text); is {
			return e, err
		}
		return countValue(b, s, false, nil)
	})
	if err != nil {
		return 0, err
	}
	if string(typ) == `"text"` {
		w.addCount(text)
	} else {
		w.images++
	}
	return ve, nil
}

// countValue reads the value at b[s] and returns where it ends; with count,
// a string's tokens are counted into *into as it is read (textTokensTo: a
// long text is read once, not skipped to its end and then counted).
func countValue(b []byte, s int, count bool, into *PromptEstimate) (int, error) {
	if count && b[s] == '"' {
		r, l, saved, e, ok := textTokensSavedTo(b, s)
		if !ok {
			return 0, errWalk
		}
		into.Reserve, into.Likely, into.Saved = r, l, saved
		return e, nil
	}
	e, err := jsonscan.SkipValue(b, s)
	if err != nil {
		return 0, errWalk
	}
	return e, nil
}

// estimatePromptJSON is EstimatePrompt by encoding/json.
func estimatePromptJSON(messages json.RawMessage) (PromptEstimate, error) {
	var msgs []estimateMessage
	if err := json.Unmarshal(messages, &msgs); err != nil {
		return PromptEstimate{}, err
	}
	var w promptWalk
	for _, m := range msgs {
		w.overhead += 4
		w.addString(m.ToolCallID)
		var calls []estimateCall
		if len(m.ToolCalls) > 0 && json.Unmarshal(m.ToolCalls, &calls) == nil { // calls of another shape count nothing
			for _, c := range calls {
				w.addString(c.ID)
				w.addString(c.Function.Name)
				w.addString(c.Function.Arguments)
			}
		}
		if len(m.Content) == 0 || m.Content[0] == 'n' { // absent or null
			continue
		}
		if m.Content[0] == '"' {
			w.add(m.Content)
			continue
		}
		var parts []estimatePart
		if err := json.Unmarshal(m.Content, &parts); err != nil {
			return PromptEstimate{}, err
		}
		for _, p := range parts {
			if p.Type == "text" {
				w.add(p.Text)
			} else {
				w.images++
			}
		}
	}
	return w.estimate(), nil
}

// EstimateDefinitions bounds the prompt tokens that request fields rendered
// into the prompt by the upstream take (tools, functions, a response schema):
// their JSON counted as text is (countText: a token a byte but for the
// words, punctuation runs and spaces every tokenizer's vocabulary holds,
// wordSavings), which stays above what tokenizers make of it (upstreams
// render definitions more tersely than JSON), plus 16 per top-level element
// for the framing an upstream adds and, once, definitionsPreamble (Preamble
// says so: ReserveFor takes off what the model's maker does not add).
func EstimateDefinitions(values ...json.RawMessage) PromptEstimate {
	var e PromptEstimate
	for _, v := range values {
		if len(v) == 0 || string(v) == "null" {
			continue
		}
		reserve, likely, saved, _ := countText(v, false)
		elements := int64(max(1, arrayLen(v)))
		if e.Reserve == 0 {
			reserve = shlyuz.AddChecked(reserve, definitionsPreamble)
			e.Preamble = definitionsPreamble
		}
		e.Reserve = shlyuz.AddChecked(e.Reserve, shlyuz.AddChecked(reserve, 16*elements))
		e.Likely = shlyuz.AddChecked(e.Likely, likely)
		e.Saved = shlyuz.AddChecked(e.Saved, saved)
	}
	return e
}

// definitionsPreamble bounds the instructions an upstream adds to a prompt
// with tools: Anthropic documents 346 tokens of tool-use system prompt for
// its models (313 to 346 by tool_choice); OpenAI and Gemini add less
// (toolPreamble).
const definitionsPreamble = 346

// arrayLen is the number of elements of v when it is a JSON array (opening
// at v[0], spaces after it allowed), else 0: what decoding it into a slice
// of raw values would give, without the decode. v is valid JSON where it
// matters (a span of a body the gateway validated, or JSON it wrote): the
// elements are skipped, not checked again (a coding agent's tools are tens
// of kilobytes, counted twice a request).
func arrayLen(v []byte) int {
	if len(v) == 0 || v[0] != '[' {
		return 0
	}
	n := 0
	end, err := walkArray(v, 0, func(b []byte, vs int) (int, error) {
		n++
		e, err := jsonscan.SkipValue(b, vs)
		if err != nil {
			return 0, errWalk
		}
		return e, nil
	})
	if err != nil || jsonscan.SkipSpace(v, end) != len(v) {
		return 0
	}
	return n
}
