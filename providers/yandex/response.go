package yandex

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/plainjson"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// wireEnvelope is one native reply object: a whole reply, or one object of a
// stream. grpc-gateway wraps the message in "result"; a bare CompletionResponse
// (as an operation's "response" is) is read as well.
type wireEnvelope struct {
	Result *wireResult     `json:"result"`
	Error  json.RawMessage `json:"error"`
	wireResult
}

type wireResult struct {
	Alternatives []wireAlternative `json:"alternatives"`
	Usage        *wireUsage        `json:"usage"`
	ModelVersion string            `json:"modelVersion"`
}

type wireAlternative struct {
	Message struct {
		Role         string `json:"role"`
		Text         string `json:"text"`
		ToolCallList *struct {
			ToolCalls []struct {
				FunctionCall *struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"functionCall"`
			} `json:"toolCalls"`
		} `json:"toolCallList"`
	} `json:"message"`
	Status string `json:"status"`
}

// wireUsage is the native usage; its counts are int64, which proto-JSON
// writes as strings.
type wireUsage struct {
	InputTextTokens         int64s `json:"inputTextTokens"`
	CompletionTokens        int64s `json:"completionTokens"`
	TotalTokens             int64s `json:"totalTokens"`
	CompletionTokensDetails *struct {
		ReasoningTokens int64s `json:"reasoningTokens"`
	} `json:"completionTokensDetails"`
}

func (w *wireUsage) usage() shlyuz.Usage {
	u := shlyuz.Usage{
		PromptTokens:     int64(w.InputTextTokens),
		CompletionTokens: int64(w.CompletionTokens),
		TotalTokens:      int64(w.TotalTokens),
	}
	if d := w.CompletionTokensDetails; d != nil {
		u.ReasoningTokens = int64(d.ReasoningTokens)
	}
	u = u.Normalized()
	return u
}

// int64s is an int64 written as a JSON string ("19") or a number (19).
type int64s int64

func (n *int64s) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if s == "" {
			*n = 0
			return nil
		}
		b = []byte(s)
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return err
	}
	*n = int64s(v)
	return nil
}

// The alternative statuses.
const (
	statusPartial       = "ALTERNATIVE_STATUS_PARTIAL"
	statusUnspecified   = "ALTERNATIVE_STATUS_UNSPECIFIED"
	statusTruncated     = "ALTERNATIVE_STATUS_TRUNCATED_FINAL"
	statusContentFilter = "ALTERNATIVE_STATUS_CONTENT_FILTER"
	statusToolCalls     = "ALTERNATIVE_STATUS_TOOL_CALLS"
)

// finishReason maps a status to OpenAI's finish_reason; "" for a status that
// does not end the alternative. An unknown status is taken as an end.
func finishReason(status string, hasToolCalls bool) string {
	switch status {
	case "", statusPartial, statusUnspecified:
		return ""
	case statusTruncated:
		return "length"
	case statusContentFilter:
		return "content_filter"
	case statusToolCalls:
		return "tool_calls"
	}
	// ALTERNATIVE_STATUS_FINAL, or a status newer than this adapter.
	if hasToolCalls {
		return "tool_calls"
	}
	return "stop"
}

// toolCall is a native tool call in OpenAI's terms.
type toolCall struct {
	Name      string
	Arguments string // a JSON text
}

// toolCalls reads an alternative's tool calls; arguments become OpenAI's JSON string.
func (a *wireAlternative) toolCalls() ([]toolCall, error) {
	l := a.Message.ToolCallList
	if l == nil {
		return nil, nil
	}
	out := make([]toolCall, 0, len(l.ToolCalls))
	for _, c := range l.ToolCalls {
		if c.FunctionCall == nil {
			continue
		}
		args := "{}"
		if v := c.FunctionCall.Arguments; present(v) {
			if v[0] == '"' { // already a JSON string
				if err := json.Unmarshal(v, &args); err != nil {
					return nil, err
				}
			} else {
				var buf bytes.Buffer
				if err := json.Compact(&buf, v); err != nil {
					return nil, err
				}
				args = buf.String()
			}
		}
		out = append(out, toolCall{Name: c.FunctionCall.Name, Arguments: args})
	}
	return out, nil
}

// toolCallID is the id given to the n-th tool call of a generation (the
// native API has none): stable, so a stream and its follow-up agree.
func toolCallID(generationID string, n int) string {
	return "call_" + generationID + "_" + strconv.Itoa(n)
}

// appendToolCalls appends OpenAI's tool_calls array; indexed adds the
// "index" member of stream deltas, numbered from first.
func appendToolCalls(b []byte, generationID string, calls []toolCall, first int, indexed bool) []byte {
	b = append(b, '[')
	for i, c := range calls {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '{')
		if indexed {
			b = append(b, `"index":`...)
			b = strconv.AppendInt(b, int64(first+i), 10)
			b = append(b, ',')
		}
		b = append(b, `"id":`...)
		b = plainjson.AppendString(b, toolCallID(generationID, first+i))
		b = append(b, `,"type":"function","function":{"name":`...)
		b = plainjson.AppendString(b, c.Name)
		b = append(b, `,"arguments":`...)
		b = plainjson.AppendString(b, c.Arguments)
		b = append(b, "}}"...)
	}
	return append(b, ']')
}

// decodeEnvelope parses one reply object.
func decodeEnvelope(data []byte) (*wireEnvelope, *wireResult, error) {
	var env wireEnvelope
	if err := json.Unmarshal(data, &env); err != nil {
		return nil, nil, err
	}
	res := env.Result
	if res == nil {
		res = &env.wireResult
	}
	return &env, res, nil
}

// jsonProblem says what is wrong with an object that did not decode.
func jsonProblem(data []byte) string {
	if json.Valid(data) {
		return "is not a completion (a field has the wrong type)"
	}
	return "is not valid JSON"
}

// decodeReply turns a non-streamed native reply into OpenAI's choices.
func decodeReply(name string, data []byte, generationID string, now time.Time) (*shlyuz.ChatResponse, error) {
	env, res, err := decodeEnvelope(data)
	if err != nil {
		e := upstream.Malformed("the reply " + jsonProblem(data))
		e.Cause = err
		return nil, e
	}
	if present(env.Error) {
		return nil, streamError(name, env.Error, false, now)
	}
	if len(res.Alternatives) == 0 {
		return nil, upstream.Malformed("the reply has no alternatives")
	}
	b := make([]byte, 0, 256)
	b = append(b, '[')
	var first string
	ncalls := 0
	for i := range res.Alternatives {
		a := &res.Alternatives[i]
		calls, err := a.toolCalls()
		if err != nil {
			return nil, upstream.Malformed("a tool call's arguments are not valid JSON")
		}
		finish := finishReason(a.Status, len(calls) > 0)
		if finish == "" {
			finish = "stop" // a whole reply is over, whatever its status says
		}
		if i == 0 {
			first = finish
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"index":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `,"message":{"role":"assistant","content":`...)
		if a.Message.Text == "" && len(calls) > 0 {
			b = append(b, "null"...)
		} else {
			b = plainjson.AppendString(b, a.Message.Text)
		}
		if len(calls) > 0 {
			b = append(b, `,"tool_calls":`...)
			b = appendToolCalls(b, generationID, calls, ncalls, false)
			ncalls += len(calls)
		}
		b = append(b, '}')
		b = upstream.AppendFinish(b, finish)
		b = append(b, '}')
	}
	b = append(b, ']')
	r := &shlyuz.ChatResponse{
		Created:           now.Unix(),
		Choices:           b,
		SystemFingerprint: res.ModelVersion,
		FinishReason:      first,
	}
	if res.Usage != nil {
		r.Usage = res.Usage.usage()
	}
	return r, nil
}
