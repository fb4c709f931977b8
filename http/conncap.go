package http

import (
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// capListener caps the connections open at once: one over the cap is answered
// a JSON 503 and closed, not left waiting in the backlog or handed to
// fasthttp (whose own refusal is plain text).
type capListener struct {
	net.Listener
	max  int64
	open atomic.Int64
}

// refusedFull is the whole answer to a connection over the cap.
var refusedFull = func() []byte {
	body := `{"error":{"message":"The gateway has too many open connections; try again in a second.",` +
		`"type":"service_unavailable","code":"too_many_connections"}}` + "\n"
	return []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n" +
		"Connection: close\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}()

func (l *capListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) > l.max {
			l.open.Add(-1)
			go refuse(c)
			continue
		}
		return &cappedConn{Conn: c, l: l}, nil
	}
}

// refuse answers a connection over the cap and closes it.
func refuse(c net.Conn) {
	_ = c.SetDeadline(time.Now().Add(time.Second))
	_, _ = c.Write(refusedFull)
	_ = c.Close()
}

// cappedConn gives its place back once, when closed.
type cappedConn struct {
	net.Conn
	l    *capListener
	once sync.Once
}

func (c *cappedConn) Close() error {
	c.once.Do(func() { c.l.open.Add(-1) })
	return c.Conn.Close()
}
