package api

import (
	"bufio"
	"encoding/json"
	"strings"

	"github.com/gofiber/fiber/v2"
	shlyuz "github.com/shlyuz/shlyuz"
)

// geminiErrorBody is Google's error shape: {"error":{"code","message","status"}},
// status a google.rpc.Code name. Our own code rides along in details as an
// ErrorInfo reason, where Google puts its own reasons.
type geminiErrorBody struct {
	Error geminiErrorInner `json:"error"`
}

type geminiErrorInner struct {
	Code    int           `json:"code"`
	Message string        `json:"message"`
	Status  string        `json:"status"`
	Details []geminiTyped `json:"details,omitempty"`
}

type geminiTyped struct {
	Type   string `json:"@type"`
	Reason string `json:"reason"`
	Domain string `json:"domain"`
}

// geminiStatus is the google.rpc.Code name of an HTTP status (Google's
// mapping in google/rpc/code.proto).
func geminiStatus(status int) string {
	switch status {
	case 400, 405, 413, 415, 422:
		return "INVALID_ARGUMENT"
	case 401:
		return "UNAUTHENTICATED"
	case 403:
		return "PERMISSION_DENIED"
	case 404, 410:
		return "NOT_FOUND"
	case 408, 504:
		return "DEADLINE_EXCEEDED"
	case 409:
		return "ABORTED"
	case 429:
		return "RESOURCE_EXHAUSTED"
	case 499:
		return "CANCELLED"
	case 501:
		return "UNIMPLEMENTED"
	case 502, 503:
		return "UNAVAILABLE"
	}
	if status < 500 {
		return "FAILED_PRECONDITION"
	}
	return "INTERNAL"
}

// forGemini is e as a Gemini client is told it. The Gemini API has no 402:
// an account out of credits or a key over its ceiling is a quota that is
// used up, 429 RESOURCE_EXHAUSTED, as Google answers a project whose quota
// or prepaid credit is spent. Its message says "limit: 0", Google's words for
// a quota that cannot serve at all, which Gemini CLI reads as final (it shows
// the message instead of retrying the call ten times).
func forGemini(e *shlyuz.Error) *shlyuz.Error {
	if e.Status == 402 || e.Code == "key_limit_exceeded" {
		c := *e
		c.Status = 429
		until := "the balance is topped up"
		if e.Code == "key_limit_exceeded" {
			until = "the key's ceiling resets or is raised"
		}
		c.Message = strings.TrimSpace(e.Message) + " Quota limit: 0 until " + until + "."
		return &c
	}
	return e
}

func newGeminiError(e *shlyuz.Error) geminiErrorBody {
	b := geminiErrorBody{Error: geminiErrorInner{Code: e.Status, Message: e.Message, Status: geminiStatus(e.Status)}}
	if e.Code != "" {
		b.Error.Details = []geminiTyped{{Type: "type.googleapis.com/google.rpc.ErrorInfo", Reason: e.Code, Domain: "shlyuz"}}
	}
	return b
}

// geminiRoute reports whether path is under one of the Gemini API's roots
// (/api/v1beta/, /api/v1/v1beta/), whose clients read Google's error shape.
func geminiRoute(path string) bool {
	p := strings.ToLower(path)
	return strings.HasPrefix(p, "/api/v1beta/") || strings.HasPrefix(p, "/api/v1/v1beta/")
}

// writeGeminiError answers e in Google's shape.
func writeGeminiError(c *fiber.Ctx, e *shlyuz.Error) error {
	e = forGemini(e)
	setErrorHeaders(c, e)
	return c.Status(e.Status).JSON(newGeminiError(e))
}

// GeminiErrors answers every failure of the routes after it in Google's
// error shape, with the status and headers of the one error body.
func (s *Server) GeminiErrors(c *fiber.Ctx) error {
	err := c.Next()
	if err == nil {
		return nil
	}
	return writeGeminiError(c, s.asError(c, err))
}

// GeminiErrorJSON is a stream's failure as the error object Google sends in
// place of a chunk.
func GeminiErrorJSON(e *shlyuz.Error) []byte {
	b, _ := json.Marshal(newGeminiError(forGemini(e)))
	return b
}

// GeminiKey takes the key from x-goog-api-key (Google's header), the key
// query parameter or Authorization: Bearer, checks its shape and leaves the
// full check to the reservation, as KeyHashOnly does.
func GeminiKey(c *fiber.Ctx) error {
	key := c.Get("X-Goog-Api-Key")
	if key == "" {
		key = c.Query("key")
	}
	if key == "" {
		return KeyHashOnly(c)
	}
	if !shlyuz.LooksLikeKey(key) {
		return shlyuz.ErrInvalidKey()
	}
	c.Locals(LocalKeyHash, shlyuz.HashKey(key))
	return c.Next()
}

// WriteGeminiKeepAlive keeps an idle Gemini stream open: white space, which
// Google's SDKs skip before an event's "data:" and JSON allows between the
// elements of an array stream.
func WriteGeminiKeepAlive(w *bufio.Writer) { _ = w.WriteByte('\n') }
