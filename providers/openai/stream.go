package openai

import (
	"bytes"
	"io"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/sse"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// newStream reads an upstream's SSE stream: the data lines of an event are
// joined with a space, the same white space for JSON, so that a chunk stays
// on one line downstream.
func newStream(body *upstream.Body, rw *rewriter) *sse.Stream {
	return sse.NewStream(body, &decoder{rw: rw}, sse.Config{DataSep: ' '})
}

// decoder reads the stream's events through the rewriter.
type decoder struct {
	rw        *rewriter
	sawUsage  bool
	sawFinish bool
}

// End handles the upstream closing the stream cleanly.
func (d *decoder) End() error {
	if d.sawUsage || d.sawFinish {
		return io.EOF
	}
	return upstream.EndedEarly()
}

// Decode handles the data of one event; skip means it produced nothing to send.
func (d *decoder) Decode(event sse.Event) (ev shlyuz.StreamEvent, skip bool, err error) {
	payload := event.Data
	if len(payload) == 0 {
		return ev, true, nil
	}
	if bytes.HasPrefix(payload, []byte("[DONE]")) {
		return ev, false, io.EOF
	}
	res := d.rw.rewrite(payload)
	if res.err != nil {
		return ev, false, res.err
	}
	if res.usage != nil {
		d.sawUsage = true
	}
	if res.finishReason != "" {
		d.sawFinish = true
	}
	return shlyuz.StreamEvent{
		Data:             res.data,
		Usage:            res.usage,
		FinishReason:     res.finishReason,
		CompletionTokens: res.tokens,
	}, false, nil
}
