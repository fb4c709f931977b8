package netguard

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestEverySpecialRangeIsRefused(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		public bool
	}{
		{"8.8.8.8", true},
		{"1.1.1.1", true},
		{"2606:4700:4700::1111", true},
		{"64:ff9b::808:808", true},  // NAT64 of 8.8.8.8
		{"2002:808:808::1", true},   // 6to4 of 8.8.8.8
		{"::ffff:8.8.8.8", true},    // IPv4-mapped 8.8.8.8
		{"127.0.0.1", false},        // loopback
		{"10.1.2.3", false},         // private
		{"172.16.0.1", false},       // private
		{"192.168.1.1", false},      // private
		{"169.254.169.254", false},  // link-local (cloud metadata)
		{"100.64.0.1", false},       // carrier-grade NAT
		{"0.0.0.0", false},          // this network
		{"0.1.2.3", false},          // this network
		{"198.18.0.1", false},       // benchmarking
		{"198.19.255.255", false},   // benchmarking
		{"192.0.0.1", false},        // IETF protocol assignments
		{"192.0.2.1", false},        // documentation
		{"198.51.100.1", false},     // documentation
		{"203.0.113.1", false},      // documentation
		{"224.0.0.1", false},        // multicast
		{"240.0.0.1", false},        // reserved
		{"255.255.255.255", false},  // broadcast
		{"::1", false},              // loopback
		{"::", false},               // unspecified
		{"fe80::1", false},          // link-local
		{"fc00::1", false},          // unique local
		{"ff02::1", false},          // multicast
		{"2001:db8::1", false},      // documentation
		{"::ffff:127.0.0.1", false}, // IPv4-mapped loopback
		{"::ffff:169.254.169.254", false},
		{"64:ff9b::7f00:1", false},   // NAT64 of 127.0.0.1
		{"64:ff9b::a00:1", false},    // NAT64 of 10.0.0.1
		{"64:ff9b::c612:1", false},   // NAT64 of 198.18.0.1
		{"64:ff9b:1::a00:1", false},  // local-use NAT64
		{"2002:7f00:1::1", false},    // 6to4 of 127.0.0.1
		{"2002:a9fe:a9fe::1", false}, // 6to4 of 169.254.169.254
		{"2002:c000:0201::1", false}, // 6to4 of 192.0.2.1
		{"2001::1", false},           // Teredo
		{"fe80::1%eth0", false},      // zoned link-local
	} {
		err := Default.Check(netip.MustParseAddr(tc.addr))
		if tc.public && err != nil {
			t.Errorf("%s refused: %v", tc.addr, err)
		}
		if !tc.public && !errors.Is(err, ErrNotPublic) {
			t.Errorf("%s allowed", tc.addr)
		}
	}
}

func TestTheClientRefusesAtDialTime(t *testing.T) {
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer ts.Close()
	// By name: localhost resolves to loopback, which is judged once resolved.
	for _, u := range []string{ts.URL, "http://localhost:" + ts.Listener.Addr().(interface{ String() string }).String()[len("127.0.0.1:"):]} {
		if _, err := Default.Client(0).Get(u); !errors.Is(err, ErrNotPublic) {
			t.Errorf("%s: %v", u, err)
		}
	}
	// A guard that takes loopback for a public host delivers.
	resp, err := New(netip.MustParsePrefix("127.0.0.0/8")).Client(0).Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
}

func TestRedirectsKeepCredentialsOnTheirHost(t *testing.T) {
	secrets := []string{"Authorization", "X-Goog-Api-Key", "X-Api-Key", "X-Key"}
	got := map[string]http.Header{}
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { got["other"] = r.Header.Clone() }))
	defer other.Close()
	first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/away":
			http.Redirect(w, r, other.URL+"/file", http.StatusFound)
		case "/here":
			http.Redirect(w, r, "/file", http.StatusFound)
		default:
			got["same"] = r.Header.Clone()
		}
	}))
	defer first.Close()
	c := New(netip.MustParsePrefix("127.0.0.0/8")).Client(0)
	for _, path := range []string{"/away", "/here"} {
		req, _ := http.NewRequest("GET", first.URL+path, nil)
		for _, h := range secrets {
			req.Header.Set(h, "secret")
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
	}
	for _, h := range secrets {
		if v := got["other"].Get(h); v != "" {
			t.Errorf("%s followed a redirect to another host", h)
		}
		if v := got["same"].Get(h); v != "secret" {
			t.Errorf("%s was dropped on a redirect to the same host", h)
		}
	}
}
