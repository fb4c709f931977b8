package media_test

import (
	"math/rand/v2"
	"testing"

	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/media/mediatest"
	"github.com/shlyuz/shlyuz/providers/fake"
)

// noisyMP3 is seconds of MP3 frames (MPEG-1 layer III, 128 kbit/s, 44.1 kHz)
// whose bodies are random bytes, as compressed audio looks: false frame
// headers turn up in them as they do in real files.
func noisyMP3(seconds float64, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, seed))
	b := mediatest.MP3(seconds)
	for off := 0; off < len(b); off += 417 {
		for i := off + 4; i < off+417; i++ {
			b[i] = byte(r.Uint32())
		}
	}
	return b
}

// TestAudioSecondsBoundsDecoders: for the liar files (junk after the first
// MP3 frame, an Ogg whose last granule and a FLAC whose STREAMINFO claim 1 s
// of 600), and for honest files, the gateway's duration is at least what a
// decoder plays (go-mp3, mewkiz/flac, the fake's Opus packet count), and not
// far above it.
func TestAudioSecondsBoundsDecoders(t *testing.T) {
	for _, tc := range []struct {
		name, kind string
		audio      []byte
		slack      float64 // how far above the decoder the bound may be
	}{
		{"mp3 with 0x00 after its first frame", "mp3", mediatest.MP3WithJunk(600), 1.001},
		{"ogg whose last page says 1 s", "ogg", mediatest.OggOpusClaiming(600, 1), 1.001},
		{"flac whose STREAMINFO says 1 s", "flac", mediatest.FLACClaiming(600, 1), 1.001},
		{"honest mp3", "mp3", mediatest.MP3(30), 1.001},
		{"honest ogg", "ogg", mediatest.OggOpus(30), 1.001},
		{"honest flac", "flac", mediatest.FLACClaiming(30, 30), 1.001},
		{"wav", "wav", mediatest.WAV(3, 16000), 1.001},
		{"mp3 of noise: false headers in the frames", "mp3", noisyMP3(120, 1), 1.25},
	} {
		t.Run(tc.name, func(t *testing.T) {
			played, ok := fake.DecodedSeconds(tc.kind, tc.audio)
			if !ok {
				t.Fatal("the decoder cannot play it")
			}
			secs, measured := media.AudioSeconds(tc.kind, tc.audio)
			t.Logf("%d bytes: decoder plays %.3f s, the gateway reads %.3f s (%.4f×)", len(tc.audio), played, secs.Float64(), secs.Float64()/played)
			if !measured || secs.Float64() < played*(1-1e-9) { // the decoder's float sum may round up
				t.Fatalf("AudioSeconds = %s (measured %v), below the decoder's %.3f s", secs, measured, played)
			}
			if secs.Float64() > played*tc.slack {
				t.Errorf("AudioSeconds = %s, over %.3f× the decoder's %.3f s", secs, tc.slack, played)
			}
		})
	}
}

// TestAudioSecondsUnmeasured: content the walks cannot read is not
// measured (and so refused where it is priced).
func TestAudioSecondsUnmeasured(t *testing.T) {
	adpcm := mediatest.WAV(1, 8000)
	adpcm[20] = 2 // format tag: Microsoft ADPCM
	for _, tc := range []struct {
		name, kind string
		audio      []byte
	}{
		{"mp3 without a frame", "mp3", make([]byte, 5000)},
		{"ogg of no known codec", "ogg", []byte("OggS\x00\x02" + string(make([]byte, 40)))},
		{"flac without frames", "flac", []byte("fLaC\x80\x00\x00\x22" + string(make([]byte, 34)))},
		{"wav of another codec", "wav", adpcm},
	} {
		if _, measured := media.AudioSeconds(tc.kind, tc.audio); measured {
			t.Errorf("%s: measured", tc.name)
		}
	}
}

// BenchmarkAudioSecondsMP3 is the walk's cost for 25 MB of MP3 (OpenAI's
// upload limit), in MB/s.
func BenchmarkAudioSecondsMP3(b *testing.B) {
	audio := noisyMP3(1600, 2)
	b.SetBytes(int64(len(audio)))
	for b.Loop() {
		media.AudioSeconds("mp3", audio)
	}
}
