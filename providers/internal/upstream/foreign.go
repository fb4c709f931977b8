package upstream

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/shlyuz/shlyuz/netguard"
)

// foreign fetches URLs off the upstream's own host: every address judged by
// netguard when dialled, no credentials.
var foreign = netguard.Default.Client(10 * time.Minute)

// SameHost reports whether u is on the host (and scheme) of base, the
// upstream's configured URL.
func SameHost(base, u string) bool {
	b, err1 := url.Parse(base)
	p, err2 := url.Parse(u)
	return err1 == nil && err2 == nil && b.Host != "" && strings.EqualFold(b.Host, p.Host) && b.Scheme == p.Scheme
}

// ForURL is the client to fetch u with: c when u is on base's host, else the
// guarded client (and then the caller sends no credentials: same is false).
func ForURL(c *http.Client, base, u string) (client *http.Client, same bool) {
	if SameHost(base, u) {
		return c, true
	}
	return foreign, false
}
