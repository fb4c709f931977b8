package gemini

import (
	"encoding/json"
	"io"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/sse"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// newStream reads a Gemini alt=sse stream: "data: <GenerateContentResponse>"
// events, no [DONE], the end is the connection's close. A bare JSON line is
// read as an event too: Google's SDK reads it as an error object.
func newStream(body *upstream.Body, ck *chunker) *sse.Stream {
	return sse.NewStream(body, decoder{ck}, sse.Config{})
}

// decoder reads the stream's events through the chunker.
type decoder struct{ ck *chunker }

// End handles the upstream closing the stream: the normal end once a
// candidate finished, a cut otherwise.
func (d decoder) End() error {
	if d.ck.finished {
		return io.EOF
	}
	return upstream.EndedEarly()
}

// Decode handles the data of one event; skip means it produced nothing to send.
func (d decoder) Decode(event sse.Event) (ev shlyuz.StreamEvent, skip bool, err error) {
	payload := event.Data
	if len(payload) == 0 {
		return ev, true, nil
	}
	var w wireResponse
	if jerr := json.Unmarshal(payload, &w); jerr != nil {
		e := upstream.Malformed("a stream chunk is not valid JSON")
		e.Cause = jerr
		return ev, false, e
	}
	ev, skip, serr := d.ck.convert(&w)
	if serr != nil {
		return ev, false, serr
	}
	return ev, skip, nil
}
