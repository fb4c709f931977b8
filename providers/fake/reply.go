package fake

import (
	"io"
	"net/http"
	"strconv"
)

// readBody reads the request's body (up to maxBody) and remembers the
// request; false when the client went away.
func (s *Server) readBody(r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody))
	if err != nil {
		return nil, false
	}
	s.Remember(r, body)
	return body, true
}

// writeWhole writes b, a whole non-streamed reply, with status 200 and the
// headers already set on w, spoiled as fault asks: malformed sends the first
// half as if it were all; cut promises all of b, sends its first half and
// drops the connection; midstream-error calls midstream instead, when the
// protocol has not answered that fault already (midstream nil).
func writeWhole(w http.ResponseWriter, fault string, b []byte, midstream func()) {
	h := w.Header()
	switch fault {
	case FaultMalformed:
		b = b[:len(b)/2]
	case FaultCut:
		h.Set("Content-Length", strconv.Itoa(len(b)))
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(b[:len(b)/2])
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
		Abort()
	case FaultMidstreamError:
		if midstream != nil {
			midstream()
			return
		}
	}
	h.Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b)
}

// writeFlush writes b, a piece of a stream, and flushes it to the client when
// f is not nil; false when the client went away.
func writeFlush(w http.ResponseWriter, f http.Flusher, b []byte) bool {
	if _, err := w.Write(b); err != nil {
		return false
	}
	if f != nil {
		f.Flush()
	}
	return true
}
