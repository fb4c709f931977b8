// Package openai serves OpenAI's client protocol for chat completions
// (/chat/completions, also behind the web chat) and embeddings
// (/embeddings): it reads and checks the request, asks the gateway, and writes
// the reply or its chunk stream in OpenAI's shape.
package openai

import (
	"github.com/gofiber/fiber/v2"
	"github.com/shlyuz/shlyuz/http/internal/api"
)

// server is the shared HTTP core (http/internal/api) that this package's
// handlers hang on.
type server struct{ *api.Server }

// Mount adds POST /chat/completions and POST /embeddings to v1, and returns
// the chat handler for a key given by hash (the web area's chat).
func Mount(v1 fiber.Router, a *api.Server) func(c *fiber.Ctx, keyHash string) error {
	s := &server{a}
	v1.Post("/chat/completions", api.KeyHashOnly, s.chatCompletions)
	v1.Post("/embeddings", api.KeyHashOnly, s.createEmbeddings)
	return s.ChatAs
}
