package main

import (
	"net"
	"os"
	"syscall"
)

// reservedAddr is the gateway's address taken before it is ready: bound, so
// that the port is known (port 0 resolved) and one another process serves on
// fails at once, but not listening, so that a client connecting while the
// gateway starts is refused instead of waiting in the accept queue.
type reservedAddr struct {
	fd   int
	addr *net.TCPAddr
}

// reserve binds a TCP socket to address without listening on it.
func reserve(address string) (*reservedAddr, error) {
	a, err := net.ResolveTCPAddr("tcp", address)
	if err != nil {
		return nil, err
	}
	family, sa := syscall.AF_INET6, syscall.Sockaddr(nil)
	if ip4 := a.IP.To4(); ip4 != nil {
		family, sa = syscall.AF_INET, &syscall.SockaddrInet4{Port: a.Port, Addr: [4]byte(ip4)}
	} else {
		s6 := &syscall.SockaddrInet6{Port: a.Port}
		if a.IP != nil {
			s6.Addr = [16]byte(a.IP.To16())
		}
		sa = s6
	}
	fd, err := syscall.Socket(family, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, os.NewSyscallError("socket", err)
	}
	if err := syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, syscall.SO_REUSEADDR, 1); err != nil {
		syscall.Close(fd)
		return nil, os.NewSyscallError("setsockopt", err)
	}
	if family == syscall.AF_INET6 && a.IP == nil { // ":8080": both IPv4 and IPv6, as net.Listen does
		_ = syscall.SetsockoptInt(fd, syscall.IPPROTO_IPV6, syscall.IPV6_V6ONLY, 0)
	}
	if err := syscall.Bind(fd, sa); err != nil {
		syscall.Close(fd)
		return nil, &net.OpError{Op: "listen", Net: "tcp", Addr: a, Err: os.NewSyscallError("bind", err)}
	}
	bound, err := syscall.Getsockname(fd)
	if err != nil {
		syscall.Close(fd)
		return nil, os.NewSyscallError("getsockname", err)
	}
	r := &reservedAddr{fd: fd, addr: &net.TCPAddr{IP: a.IP, Port: a.Port, Zone: a.Zone}}
	switch s := bound.(type) {
	case *syscall.SockaddrInet4:
		r.addr = &net.TCPAddr{IP: net.IP(s.Addr[:]), Port: s.Port}
	case *syscall.SockaddrInet6:
		r.addr = &net.TCPAddr{IP: net.IP(s.Addr[:]), Port: s.Port}
	}
	return r, nil
}

// Addr is the bound address.
func (r *reservedAddr) Addr() net.Addr { return r.addr }

// Listen starts accepting connections on the bound socket.
func (r *reservedAddr) Listen() (net.Listener, error) {
	if err := syscall.Listen(r.fd, syscall.SOMAXCONN); err != nil {
		return nil, os.NewSyscallError("listen", err)
	}
	f := os.NewFile(uintptr(r.fd), "shlyuz-listener")
	defer f.Close() // FileListener holds its own duplicate
	return net.FileListener(f)
}

// Close gives the address back when the gateway did not start.
func (r *reservedAddr) Close() error { return syscall.Close(r.fd) }
