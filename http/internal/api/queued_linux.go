package api

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// queuedBytes is how many bytes the kernel holds received and unread on
// conn's socket (SIOCINQ), or 0 when it cannot tell (a connection that is no
// socket of its own, or TLS, whose bytes are not the body's).
func queuedBytes(conn net.Conn) int {
	if c, ok := conn.(*CappedConn); ok {
		conn = c.Conn
	}
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return 0
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0
	}
	n := 0
	_ = raw.Control(func(fd uintptr) {
		if q, err := unix.IoctlGetInt(int(fd), unix.SIOCINQ); err == nil && q > 0 {
			n = q
		}
	})
	return n
}
