package fake

import (
	"math"
	"net/http"
	"strings"
)

// The faults of the SaluteSpeech and Gemini audio endpoints: a marker in the
// text to speak, or in a transcription's prompt, picks one.

// The audio markers: text to speak, or a transcription's prompt, that
// contains one picks a fault.
const (
	MarkerFailBefore = "[fail-before]" // a 500 before any byte
	MarkerFailAfter  = "[fail-after]"  // the connection cut after the first chunk of audio
	MarkerSlow       = "[slow]"        // the first byte SlowDelay late
)

// audioFault is the fault of an audio request: the X-Fake-Fault header or
// fault-<name> in the model, else a marker in text.
func audioFault(r *http.Request, model, text string) string {
	if f := FaultOf(r, model); f != "" {
		return f
	}
	switch {
	case strings.Contains(text, MarkerFailBefore):
		return Fault500
	case strings.Contains(text, MarkerFailAfter):
		return FaultCut
	case strings.Contains(text, MarkerSlow):
		return FaultSlow
	}
	return ""
}

// audioTokens is audio's tokens at perSecond, rounded up.
func audioTokens(seconds float64, perSecond int) int {
	return int(math.Ceil(seconds * float64(perSecond)))
}
