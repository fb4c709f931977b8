package mediatest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shlyuz/shlyuz/media"
)

func TestMP4IsAValidFileOfTheAskedDuration(t *testing.T) {
	for _, s := range []int{1, 4, 8, 10} {
		info, err := media.ProbeMP4(MP4(s))
		if err != nil {
			t.Fatalf("%d s: %v", s, err)
		}
		if info.Seconds != float64(s) || info.Codec != "avc1" || info.Samples != 2*s {
			t.Fatalf("%d s: %+v", s, info)
		}
	}
}

// With ffmpeg installed, a real decoder agrees: the duration, and a full
// decode without errors (CI without ffmpeg relies on ProbeMP4 above).
func TestMP4DecodesWithFFmpeg(t *testing.T) {
	probe, err := exec.LookPath("ffprobe")
	if err != nil {
		t.Skip("ffprobe is not installed")
	}
	f := filepath.Join(t.TempDir(), "v.mp4")
	if err := os.WriteFile(f, MP4(4), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(probe, "-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", f).CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "4.000000" {
		t.Fatalf("ffprobe: %v %s", err, out)
	}
	if ff, err := exec.LookPath("ffmpeg"); err == nil {
		if out, err := exec.Command(ff, "-v", "error", "-xerror", "-i", f, "-f", "null", "-").CombinedOutput(); err != nil || len(out) > 0 {
			t.Fatalf("ffmpeg decode: %v %s", err, out)
		}
	}
}
