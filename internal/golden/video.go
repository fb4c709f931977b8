package golden

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/media"
)

// VideoTranscript runs one video job through an adapter against upstream (a
// fake speaking the adapter's protocol): submit, poll until it ends, fetch
// the file. It returns every request the adapter sent (method, path, query,
// the headers that matter, the body) and every status it read, with the
// server's address, tokens and multipart boundaries made stable, for a
// golden file. open makes the adapter for a base URL.
func VideoTranscript(t *testing.T, upstream http.Handler, open func(base string) shlyuz.VideoProvider, req *shlyuz.VideoRequest) []byte {
	t.Helper()
	var out bytes.Buffer
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		fmt.Fprintf(&out, "> %s %s\n", r.Method, r.URL.RequestURI())
		keys := make([]string, 0, len(r.Header))
		for k := range r.Header {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch k {
			case "Authorization", "X-Goog-Api-Key", "Idempotency-Key", "Content-Type":
				fmt.Fprintf(&out, "> %s: %s\n", k, stableHeader(k, r.Header.Get(k)))
			}
		}
		if len(body) > 0 {
			out.Write(stableBody(r.Header.Get("Content-Type"), body))
			out.WriteByte('\n')
		}
		upstream.ServeHTTP(w, r)
	}))
	defer ts.Close()
	vp := open(ts.URL)
	ctx := context.Background()
	note := func(what string, st shlyuz.VideoStatus, err error) {
		st.URL = strings.ReplaceAll(st.URL, ts.URL, "http://upstream")
		b, _ := json.Marshal(st)
		fmt.Fprintf(&out, "< %s: %s err=%v\n", what, b, err)
	}
	st, err := vp.SubmitVideo(ctx, req)
	note("submit", st, err)
	for i := 0; err == nil && i < 10 && st.State != shlyuz.VideoCompleted && st.State != shlyuz.VideoFailed; i++ {
		st, err = vp.PollVideo(ctx, st.UpstreamID)
		note("poll", st, err)
	}
	for try := 0; st.State == shlyuz.VideoCompleted && try < 2; try++ { // an expired link: poll again, fetch again
		rc, err := vp.FetchVideo(ctx, st)
		if err != nil {
			fmt.Fprintf(&out, "< fetch: err=%v\n", err)
			st, err = vp.PollVideo(ctx, st.UpstreamID)
			note("poll", st, err)
			continue
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		info, err := media.ProbeMP4(data)
		fmt.Fprintf(&out, "< file: %d bytes, %+v err=%v\n", len(data), info, err)
		break
	}
	return bytes.ReplaceAll(out.Bytes(), []byte(strings.TrimPrefix(ts.URL, "http://")), []byte("upstream"))
}

func stableHeader(k, v string) string {
	switch k {
	case "Authorization":
		if strings.Count(v, ".") == 2 {
			return "Bearer <jwt>"
		}
		return "Bearer <key>"
	case "X-Goog-Api-Key":
		return "<key>"
	case "Content-Type":
		return regexp.MustCompile(`boundary=\S+`).ReplaceAllString(v, "boundary=<b>")
	}
	return v
}

// stableBody is a JSON body indented, or a multipart body as its fields.
func stableBody(ctype string, body []byte) []byte {
	mt, params, _ := mime.ParseMediaType(ctype)
	if mt == "multipart/form-data" {
		var b bytes.Buffer
		mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
		for {
			p, err := mr.NextPart()
			if err != nil {
				break
			}
			v, _ := io.ReadAll(p)
			fmt.Fprintf(&b, "  [%s] %q (%s)\n", p.FormName(), clip(v), p.Header.Get("Content-Type"))
		}
		return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	}
	var ind bytes.Buffer
	if json.Indent(&ind, body, "", "  ") == nil {
		return ind.Bytes()
	}
	return body
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
