// Package anthropic serves Anthropic's Messages protocol (/messages,
// /messages/count_tokens): a Messages request becomes a chat call (byte for
// byte where it can), and the reply, its event stream and its errors go back
// in Anthropic's shapes.
package anthropic

import (
	"github.com/gofiber/fiber/v2"
	"github.com/shlyuz/shlyuz/http/internal/api"
)

// server is the shared HTTP core (http/internal/api) that this package's
// handlers hang on.
type server struct{ *api.Server }

// Mount adds the Messages routes to v1.
func Mount(v1 fiber.Router, a *api.Server) { (&server{a}).messagesRoutes(v1) }
