package media

import (
	"encoding/binary"
	"strings"
	"testing"
)

func testBox(typ string, body ...[]byte) []byte {
	n := 8
	for _, b := range body {
		n += len(b)
	}
	out := binary.BigEndian.AppendUint32(nil, uint32(n))
	out = append(out, typ...)
	for _, b := range body {
		out = append(out, b...)
	}
	return out
}

// ProbeMP4 refuses what is not a progressive MP4 with a video track (the
// valid files are tested with mediatest's generator).
func TestProbeMP4RefusesBrokenFiles(t *testing.T) {
	ftyp := testBox("ftyp", []byte("isom\x00\x00\x02\x00"))
	for _, c := range []struct {
		name, want string
		data       []byte
	}{
		{"empty", "ftyp", nil},
		{"html", "box", []byte("<html><body>Access denied</body></html>")},
		{"truncated header", "truncated", append(ftyp, 0, 0, 0)},
		{"box past the end", "bad size", append(ftyp, 0, 0, 1, 0, 'm', 'o', 'o', 'v')},
		{"moov first", "ftyp", append(testBox("moov"), ftyp...)},
		{"no moov", "no moov", append(ftyp, testBox("mdat", []byte{1})...)},
		{"no mdat", "no mdat", append(ftyp, testBox("moov")...)},
		{"no track", "no video track", append(append(ftyp, testBox("moov")...), testBox("mdat", []byte{1})...)},
	} {
		_, err := ProbeMP4(c.data)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error about %q", c.name, err, c.want)
		}
	}
}
