package fake

import (
	"math"
	"net/http"
	"strconv"
	"strings"
)

// What the fake's audio endpoints say, whatever the protocol: a transcript
// made from the audio's duration, speech whose duration follows the text,
// and the faults a marker in the text (or the prompt) picks.

// SpeechSecondsPerChar is how long the fake's speech of one input character lasts.
const SpeechSecondsPerChar = 0.06

// SpeechSeconds is how long the fake's speech of chars characters lasts.
func SpeechSeconds(chars int) float64 { return float64(chars) * SpeechSecondsPerChar }

// TranscriptPhrases are the phrases the fake hears in audio of that
// duration; Transcript joins them with a space.
func TranscriptPhrases(seconds float64) []string {
	return []string{"the fake heard", strconv.FormatFloat(seconds, 'f', 2, 64) + " seconds of audio"}
}

// Transcript is what the fake hears in audio of that duration.
func Transcript(seconds float64) string { return strings.Join(TranscriptPhrases(seconds), " ") }

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
