package websearch_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/netguard"
	"github.com/shlyuz/shlyuz/providers/fake"
	"github.com/shlyuz/shlyuz/websearch"
)

func yandexAt(t *testing.T, url string, guard *netguard.Guard) *websearch.Yandex {
	t.Helper()
	y, err := websearch.NewYandex(websearch.YandexConfig{URL: url, FolderID: "b1gfolder", APIKey: "search-key", Guard: guard})
	if err != nil {
		t.Fatal(err)
	}
	return y
}

// The engine speaks Search API v2 as the strict fake takes it (which
// refuses any member outside WebSearchRequest) and reads its XML results:
// markup dropped from titles and snippets, the number of results asked for.
func TestYandexSearch(t *testing.T) {
	f := fake.New(fake.Options{APIKey: "search-key"})
	srv := httptest.NewServer(f)
	defer srv.Close()
	y := yandexAt(t, srv.URL+"/v2/web/search", netguard.New(netip.MustParsePrefix("127.0.0.0/8")))
	for _, tc := range []struct {
		name, query string
		max, want   int
		err         bool
	}{
		{"results", "новости науки", 4, 4, false},
		{"nothing found", "nothing here", 5, 0, false},
		{"engine fault", "fault-500", 5, 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := y.Search(context.Background(), shlyuz.WebQuery{Text: tc.query, MaxResults: tc.max})
			if (err != nil) != tc.err || len(rs) != tc.want {
				t.Fatalf("%d results, error %v", len(rs), err)
			}
			for _, r := range rs {
				if !strings.HasPrefix(r.URL, "https://") || !strings.Contains(r.Title, tc.query) || strings.Contains(r.Title, "<") || !strings.Contains(r.Content, "& more") {
					t.Fatalf("result %+v", r)
				}
			}
		})
	}
	if body := string(f.LastRequest()); !strings.Contains(body, `"groupsOnPage":"5"`) || !strings.Contains(body, `"folderId":"b1gfolder"`) {
		t.Fatalf("request %s", body)
	}
	if h := f.LastHeader().Get("Authorization"); h != "Api-Key search-key" {
		t.Fatalf("Authorization %q", h)
	}
}

// The engine is dialled through netguard: one at a loopback address the
// operator did not allow is refused before any request is sent.
func TestYandexSearchIsGuarded(t *testing.T) {
	f := fake.New(fake.Options{})
	srv := httptest.NewServer(f)
	defer srv.Close()
	_, err := yandexAt(t, srv.URL+"/v2/web/search", nil).Search(context.Background(), shlyuz.WebQuery{Text: "x", MaxResults: 1})
	if !errors.Is(err, netguard.ErrNotPublic) || f.Requests() != 0 {
		t.Fatalf("error %v, %d requests", err, f.Requests())
	}
}

// A query is clipped to Search API's limits: 40 words, 400 characters.
func TestYandexQueryLimits(t *testing.T) {
	if q := websearch.YandexQuery(strings.Repeat("слово ", 50)); len(strings.Fields(q)) != 40 {
		t.Fatalf("%d words", len(strings.Fields(q)))
	}
	if q := websearch.YandexQuery(strings.Repeat("я", 500)); len([]rune(q)) != 400 {
		t.Fatalf("%d characters", len([]rune(q)))
	}
}

// An engine reply is read to 4 MiB at most: one that runs on (a
// misbehaving proxy) is an error once that much is read, not a process
// holding all of it.
func TestYandexSearchBoundsTheReply(t *testing.T) {
	var written atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		chunk := []byte(strings.Repeat("A", 64<<10))
		_, _ = w.Write([]byte(`{"rawData":"`))
		for range 1024 { // 64 MiB unless the reader stops
			n, err := w.Write(chunk)
			written.Add(int64(n))
			if err != nil {
				return
			}
		}
		_, _ = w.Write([]byte(`"}`))
	}))
	defer srv.Close()
	_, err := yandexAt(t, srv.URL, netguard.New(netip.MustParsePrefix("127.0.0.0/8"))).Search(context.Background(), shlyuz.WebQuery{Text: "x", MaxResults: 1})
	if err == nil || !strings.Contains(err.Error(), "larger than 4 MiB") {
		t.Fatalf("error %v", err)
	}
	srv.CloseClientConnections()
	if w := written.Load(); w >= 64<<20 {
		t.Fatalf("the whole reply (%d bytes) was sent", w)
	}
}
