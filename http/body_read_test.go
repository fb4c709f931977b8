package http

import (
	"bytes"
	"io"
	"testing"

	"github.com/gofiber/fiber/v2"
	"github.com/shlyuz/shlyuz/http/internal/api"
	"github.com/shlyuz/shlyuz/http/internal/apitest"
	"github.com/valyala/fasthttp"
)

// chunks reads its bytes 4 KiB at a time, as a socket hands them over.
type chunks struct{ r io.Reader }

func (c chunks) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), 4<<10)]) }

// TestReadUpToGrowsByWhatArrived: an honest announced size ends in a buffer
// of that size after a few fourfold growths, or, from 64 KiB, in the pool
// class that holds it, at most an eighth larger (a non-streamed chat gives
// it back: releaseBody); an
// unknown size doubles; a size announced but not sent costs only what
// arrived; a body longer than announced is still read whole.
func TestReadUpToGrowsByWhatArrived(t *testing.T) {
	const limit = 1 << 20
	for _, tc := range []struct {
		name            string
		sent, announced int
		maxHeld         int64
		wantCap         int
	}{
		{"honest 150 KB", 150_000, 150_000, 16<<10 + 64<<10 + 160<<10, 160 << 10},
		{"honest 40 KB", 40_000, 40_000, 16<<10 + 40_001, 40_001},
		{"unknown size", 150_000, -1, 16<<10 + 32<<10 + 64<<10 + 128<<10 + 256<<10, 256 << 10},
		{"announced, not sent", 10, 900_000, 16 << 10, 16 << 10},
		{"longer than announced", 150_000, 1_000, 1_001 + 16<<10 + 32<<10 + 64<<10 + 128<<10 + 256<<10, 256 << 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := bytes.Repeat([]byte("x"), tc.sent)
			lease := &api.BodyLease{Budget: &api.BodyBudget{Max: 1 << 30}}
			got, err := api.ReadUpTo(chunks{bytes.NewReader(body)}, limit, tc.announced, lease, nil, nil)
			if err != nil || !bytes.Equal(got, body) {
				t.Fatalf("read %d bytes, %v", len(got), err)
			}
			if lease.Held > tc.maxHeld || cap(got) != tc.wantCap {
				t.Fatalf("held %d bytes (at most %d), buffer of %d (want %d)", lease.Held, tc.maxHeld, cap(got), tc.wantCap)
			}
		})
	}
}

// BenchmarkReadBody150KB is the bytes a 150 KB body costs to read, with its
// size announced (Content-Length) and without (chunked): about its own size
// once the pools hold the buffers bodies outgrow.
func BenchmarkReadBody150KB(b *testing.B) {
	body := apitest.BigChat(150_000)
	for _, announced := range []int{len(body), -1} {
		name := "announced"
		if announced < 0 {
			name = "chunked"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				lease := &api.BodyLease{Budget: &api.BodyBudget{Max: 1 << 30}}
				if _, err := api.ReadUpTo(chunks{bytes.NewReader(body)}, 32<<20, announced, lease, nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestOwnBodyOnlyWhileTheBodyIsOurs: a body read by the gateway may be kept
// without a copy; once a handler sets another body (fasthttp copies it into
// its pooled buffer), ownedBody copies again.
func TestOwnBodyOnlyWhileTheBodyIsOurs(t *testing.T) {
	app := fiber.New()
	c := app.AcquireCtx(&fasthttp.RequestCtx{})
	defer app.ReleaseCtx(c)
	if api.OwnBody(c) {
		t.Fatal("a body nobody read is not ours")
	}
	ours := []byte(`{"model":"a/b"}`)
	c.Request().SetBodyRaw(ours)
	c.Locals(api.LocalOwnBody, ours)
	if !api.OwnBody(c) || &api.OwnedBody(c)[0] != &ours[0] {
		t.Fatal("the gateway's own body is copied")
	}
	c.Request().SetBody([]byte(`{"model":"c/d"}`))
	if api.OwnBody(c) || &api.OwnedBody(c)[0] == &c.Body()[0] {
		t.Fatal("fasthttp's pooled body is kept without a copy")
	}
}

// TestClassSize: a body's last buffer is rounded up to a pooled class,
// wasting at most an eighth of it, and every class has its pool.
func TestClassSize(t *testing.T) {
	for _, tc := range []struct{ size, want int }{
		{1, 16 << 10}, {16 << 10, 16 << 10}, {16<<10 + 1, 32 << 10}, {40_001, 64 << 10}, {64 << 10, 64 << 10},
		{64<<10 + 1, 72 << 10}, {150_001, 160 << 10}, {158_432, 160 << 10}, {1_055_430, 1152 << 10},
		{4 << 20, 4 << 20}, {4<<20 + 1, 4<<20 + 1},
	} {
		got := api.ClassSize(tc.size)
		if got != tc.want {
			t.Errorf("classSize(%d) = %d, want %d", tc.size, got, tc.want)
		}
		if tc.size > 64<<10 && got-tc.size > got/8 {
			t.Errorf("classSize(%d) = %d wastes more than an eighth", tc.size, got)
		}
		if pooled := api.StagingPools[got] != nil; pooled != (got <= api.MaxStagingClass) {
			t.Errorf("class %d pooled: %v", got, pooled)
		}
	}
}

// TestReadUpToTakesWhatTheKernelHolds: bytes the kernel holds for the
// connection have arrived, so a buffer for them all is taken at once; a
// kernel that holds little, or a size it cannot tell, keeps the fourfold
// growth (a client announcing much and sending little still costs what it
// sent).
func TestReadUpToTakesWhatTheKernelHolds(t *testing.T) {
	const size = 1_000_000
	for _, tc := range []struct {
		name    string
		queued  func(rest int) int
		maxHeld int64
	}{
		{"all of it queued", func(rest int) int { return rest }, 16<<10 + int64(api.ClassSize(size+1+api.BodyTailroom))},
		{"a little queued", func(int) int { return 1 << 10 }, 16<<10 + 64<<10 + 256<<10 + int64(api.ClassSize(size+1+api.BodyTailroom))},
		{"unknown", func(int) int { return 0 }, 16<<10 + 64<<10 + 256<<10 + int64(api.ClassSize(size+1+api.BodyTailroom))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := bytes.Repeat([]byte("y"), size)
			r := bytes.NewReader(body)
			lease := &api.BodyLease{Budget: &api.BodyBudget{Max: 1 << 30}}
			got, err := api.ReadUpTo(chunks{r}, 32<<20, size, lease, nil, func() int { return tc.queued(r.Len()) })
			if err != nil || !bytes.Equal(got, body) {
				t.Fatalf("read %d bytes, %v", len(got), err)
			}
			if lease.Held != tc.maxHeld {
				t.Fatalf("held %d bytes, want %d", lease.Held, tc.maxHeld)
			}
		})
	}
}
