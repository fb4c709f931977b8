package openai

import "sync"

// The bodies of the non-streamed calls on the fasthttp path are written into
// pooled buffers: such a body is the client's prompt again (150 KB for a
// coding agent's context), and fasthttp has sent it when chatFast returns, so
// its buffer serves the next call instead of being a new allocation of the
// prompt's size (and garbage the collector must chase) on every call.

// maxPooledSend is the largest buffer kept; bigger ones go to the collector.
const maxPooledSend = 4 << 20

var sendBuffers sync.Pool

// sendBuffer is a pooled buffer, empty, of some capacity when one was
// pooled. It is a pointer, given back as it came: putting a slice itself in
// the pool would allocate its header on every call.
func sendBuffer() *[]byte {
	if p, ok := sendBuffers.Get().(*[]byte); ok {
		*p = (*p)[:0]
		return p
	}
	return new([]byte)
}

// releaseSendBuffer gives p back, holding b (its buffer, perhaps grown), for
// another call; nothing may use b after.
func releaseSendBuffer(p *[]byte, b []byte) {
	if cap(b) == 0 || cap(b) > maxPooledSend {
		return
	}
	*p = b[:0]
	sendBuffers.Put(p)
}
