package blob

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// The S3 store against an in-process S3-compatible server (gofakes3), over
// real HTTP with signed requests.
func TestS3(t *testing.T) {
	ts := httptest.NewServer(gofakes3.New(s3mem.New()).Server())
	defer ts.Close()
	s, err := NewS3(t.Context(), S3Config{Endpoint: strings.TrimPrefix(ts.URL, "http://"), Bucket: "videos", Region: "us-east-1",
		AccessKey: "ak", SecretKey: "sk", Prefix: "shlyuz/", Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	testBlobStore(t, s)
}
