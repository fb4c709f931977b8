package upstream

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestPostPartsSendsTheirJoin: the parts go as one body with its length
// announced, and a call sent again (a retry) sends the same bytes: reading a
// body leaves the parts whole.
func TestPostPartsSendsTheirJoin(t *testing.T) {
	type got struct {
		length string
		body   string
	}
	seen := make(chan got, 2)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seen <- got{r.Header.Get("Content-Length"), string(b)}
	}))
	defer srv.Close()
	big := strings.Repeat("0123456789", 20_000)
	for _, parts := range [][][]byte{
		{[]byte(`{"messages":`), []byte(`"` + big + `"`), []byte(`,"model":"m"}`)},
		{[]byte(`{"model":"m"}`)},
	} {
		want := string(parts[0])
		for _, p := range parts[1:] {
			want += string(p)
		}
		send := PostParts(srv.Client(), srv.URL, http.Header{}, parts, "application/json")
		for range 2 { // sent again: the first left the parts whole
			resp, err := send(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if g := <-seen; g.body != want || g.length != strconv.Itoa(len(want)) {
				t.Fatalf("the server got %d bytes (Content-Length %s), want %d", len(g.body), g.length, len(want))
			}
		}
	}
}
