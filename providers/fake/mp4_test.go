package fake

import (
	"testing"

	shlyuz "github.com/shlyuz/shlyuz"
)

func TestMP4IsAValidFileOfTheAskedDuration(t *testing.T) {
	for _, s := range []int{1, 4, 8, 10} {
		info, err := shlyuz.ProbeMP4(MP4(s))
		if err != nil {
			t.Fatalf("%d s: %v", s, err)
		}
		if info.Seconds != float64(s) || info.Codec != "avc1" || info.Samples != 2*s {
			t.Fatalf("%d s: %+v", s, info)
		}
	}
}
