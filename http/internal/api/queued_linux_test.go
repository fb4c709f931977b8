package api

import (
	"net"
	"runtime"
	"testing"
	"time"
)

// TestQueuedBytesOnASocket: the kernel's count of a socket's unread bytes,
// through the cap's wrapper too; a connection that is no socket tells none.
func TestQueuedBytesOnASocket(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	if _, err := client.Write(make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for queuedBytes(server) < 1000 && time.Now().Before(deadline) {
		runtime.Gosched() // loopback delivers at once; this only bounds a slow kernel
	}
	if n := queuedBytes(&CappedConn{Conn: server}); n != 1000 {
		t.Fatalf("queued %d bytes, want 1000", n)
	}
	if _, err := server.Read(make([]byte, 400)); err != nil {
		t.Fatal(err)
	}
	if n := queuedBytes(server); n != 600 {
		t.Fatalf("after reading 400: queued %d, want 600", n)
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if n := queuedBytes(a); n != 0 {
		t.Fatalf("a pipe: %d", n)
	}
}
