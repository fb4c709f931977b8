package tokens

import "encoding/json"

// Text is the upper-bound estimate of the tokens of s, a prompt of a media
// request (a speech input, an image or transcription prompt), counted as the
// JSON string the client sent.
func Text(s string) int64 {
	lit, _ := json.Marshal(s)
	reserve, _ := textTokens(lit)
	return reserve
}
