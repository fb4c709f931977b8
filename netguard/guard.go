// Package netguard is the one guarded way out for every URL the gateway
// fetches that an outsider chose or could redirect: video callbacks, media
// URLs an upstream's reply names, any future fetch. An address is judged when
// the connection is made (after DNS, so a name that rebinds to a private
// address is still refused), against every IANA special-purpose range (the
// lists of code.dny.dev/ssrf); an IPv4-mapped, NAT64 (64:ff9b::/96) or 6to4
// (2002::/16) address is judged by the IPv4 address inside it. Redirects are
// dialled through the same check, and credentials never follow a redirect to
// another host.
package netguard

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"syscall"

	"code.dny.dev/ssrf"
)

// ErrNotPublic is the error of an address the guard refuses.
var ErrNotPublic = errors.New("the address is not a public internet address")

// Guard judges addresses; its zero value (and Default) allows public ones only.
type Guard struct {
	allow []netip.Prefix // allowed although special (tests: a loopback "public" host)
	ssrf  *ssrf.Guardian
}

// Default is the guard of every fetch the gateway makes.
var Default = New()

// New is a guard that allows, beyond public addresses, those in allow.
func New(allow ...netip.Prefix) *Guard {
	return &Guard{allow: allow, ssrf: ssrf.New(ssrf.WithAnyPort(), ssrf.WithAnyNetwork())}
}

var (
	nat64     = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour = netip.MustParsePrefix("2002::/16")
)

// Check is nil for an address the guard allows, else an error naming it.
func (g *Guard) Check(ip netip.Addr) error {
	ip = ip.WithZone("")
	for _, p := range g.allow {
		if p.Contains(ip) {
			return nil
		}
	}
	judged := embeddedV4(ip)
	if err := g.ssrf.SafeAddr(judged); err != nil {
		if judged != ip {
			return fmt.Errorf("%w: %s (it carries %s)", ErrNotPublic, ip, judged)
		}
		return fmt.Errorf("%w: %s", ErrNotPublic, ip)
	}
	return nil
}

// embeddedV4 is the IPv4 address an IPv6 form carries (mapped, NAT64, 6to4),
// or ip itself.
func embeddedV4(ip netip.Addr) netip.Addr {
	switch {
	case ip.Is4In6():
		return ip.Unmap()
	case nat64.Contains(ip):
		b := ip.As16()
		return netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	case sixToFour.Contains(ip):
		b := ip.As16()
		return netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})
	}
	return ip
}

// CheckIP is Check for a net.IP (nil or malformed: refused).
func (g *Guard) CheckIP(ip net.IP) error {
	a, ok := netip.AddrFromSlice(ip)
	if !ok {
		return fmt.Errorf("%w: %v", ErrNotPublic, ip)
	}
	return g.Check(a)
}

// Control is a net.Dialer's Control: it refuses the connection to an
// address the guard does not allow, once the name is resolved.
func (g *Guard) Control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrNotPublic, address)
	}
	return g.Check(ap.Addr())
}
