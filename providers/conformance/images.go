package conformance

import (
	"bytes"
	"context"
	"errors"
	"image"
	_ "image/jpeg" // the images the fakes draw
	_ "image/png"
	"net/http/httptest"
	"strings"
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// ImageTarget is an adapter of an image API under test.
type ImageTarget struct {
	Name string
	// New makes the adapter pointed at the fake upstream's root.
	New func(t *testing.T, baseURL string) shlyuz.ImageProvider
	// Model is the upstream model that draws; Failed the one whose
	// generation fails upstream (a "fault-…" name of the fake).
	Model, Failed string
	// Size is asked of every generation.
	Size string
}

// RunImages runs the image part of the suite, as subtests of tg.Name/images,
// over real HTTP against providers/fake. It checks:
//
//   - two images asked: two images come back, each decodes (PNG or JPEG) and
//     has an image/* media type;
//   - the upstream's moderation ("fault-moderated"): a 400 content_policy
//     *shlyuz.Error with the prompt as its param, no UpstreamFault, no image;
//   - a generation the upstream failed (Failed): an *shlyuz.Error with
//     UpstreamFault or a 5xx status;
//   - a context cancelled before the call: an error, at once.
func RunImages(t *testing.T, tg ImageTarget) {
	t.Helper()
	t.Run(tg.Name+"/images", func(t *testing.T) {
		srv := httptest.NewServer(fake.New(fake.Options{ReplyTokens: ReplyTokens}))
		t.Cleanup(srv.Close)
		p := tg.New(t, srv.URL)
		ask := func(ctx context.Context, model string, n int) (*shlyuz.ImageResult, error) {
			return p.GenerateImages(ctx, &shlyuz.ImageRequest{Model: model, Prompt: "a lighthouse at dusk", N: n, Size: tg.Size})
		}
		t.Run("two_images", func(t *testing.T) {
			r, err := ask(opContext(t), tg.Model, 2)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Images) != 2 {
				t.Fatalf("%d images, want 2", len(r.Images))
			}
			for i, img := range r.Images {
				if _, _, err := image.DecodeConfig(bytes.NewReader(img.Data)); err != nil {
					t.Errorf("image %d does not decode: %v", i, err)
				}
				if !strings.HasPrefix(img.MediaType, "image/") {
					t.Errorf("image %d media type %q", i, img.MediaType)
				}
			}
		})
		t.Run("moderated", func(t *testing.T) {
			r, err := ask(opContext(t), "fault-moderated", 1)
			var e *shlyuz.Error
			if !errors.As(err, &e) || e.Status != 400 || e.Code != "content_policy" || e.UpstreamFault || e.Param == nil || *e.Param != "prompt" {
				t.Fatalf("moderation: %v (%+v), images %v; want a 400 content_policy on the prompt", err, e, r)
			}
		})
		t.Run("failed", func(t *testing.T) {
			_, err := ask(opContext(t), tg.Failed, 1)
			var e *shlyuz.Error
			if !errors.As(err, &e) || (!e.UpstreamFault && e.Status < 500) {
				t.Fatalf("a failed generation: %v (%+v), want an upstream fault", err, e)
			}
		})
		t.Run("cancelled", func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, err := ask(ctx, tg.Model, 1); err == nil {
				t.Fatal("a cancelled call succeeded")
			}
		})
	})
}
