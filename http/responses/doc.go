// Package responses serves OpenAI's Responses protocol (/responses): a
// stateless Responses request becomes a chat call, and the reply and its
// event stream go back as Responses objects and events. It reads input with
// the Anthropic package's messages writer, which both fast paths share.
package responses

import (
	"github.com/gofiber/fiber/v2"
	"github.com/shlyuz/shlyuz/http/internal/api"
)

// server is the shared HTTP core (http/internal/api) that this package's
// handlers hang on.
type server struct{ *api.Server }

// Mount adds POST /responses to v1.
func Mount(v1 fiber.Router, a *api.Server) {
	v1.Post("/responses", api.KeyHashOnly, (&server{a}).responses)
}
