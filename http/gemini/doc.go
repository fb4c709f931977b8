// Package gemini serves Google's Gemini API to clients (Gemini CLI, the
// @google/genai SDKs): models/{model}:generateContent,
// :streamGenerateContent (alt=sse, or Google's JSON array stream) and
// :countTokens under /api/v1beta/ and /api/v1/v1beta/ (the path Gemini CLI
// builds from a base URL of {base}/api/v1). A request goes as it came to a
// Gemini upstream (model and output cap aside), and in OpenAI's chat shape to
// the others; replies, streams and errors go back in Google's shapes.
package gemini

import (
	"github.com/gofiber/fiber/v2"
	"github.com/shlyuz/shlyuz/http/internal/api"
)

// server is the shared HTTP core (http/internal/api) that this package's
// handlers hang on.
type server struct{ *api.Server }

// Mount adds the Gemini routes under root (the app's /api): root/v1beta/…
// and root/v1/v1beta/….
func Mount(root fiber.Router, a *api.Server) {
	s := &server{a}
	for _, prefix := range []string{"/v1beta/models/*", "/v1/v1beta/models/*"} {
		root.Post(prefix, s.GeminiErrors, api.GeminiKey, s.method)
	}
}
