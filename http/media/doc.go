// Package media serves the media endpoints: images (/images), speech and
// transcription (/audio), and video jobs (/videos). Each reserves the worst
// case in its medium's unit, calls the upstream through the gateway, and
// settles to what was produced.
package media

import (
	"github.com/gofiber/fiber/v2"
	"github.com/shlyuz/shlyuz/http/internal/api"
)

// server is the shared HTTP core (http/internal/api) that this package's
// handlers hang on.
type server struct{ *api.Server }

// Mount adds the video, image and audio routes to v1.
func Mount(v1 fiber.Router, a *api.Server) {
	s := &server{a}
	s.videoRoutes(v1)
	s.imageRoutes(v1)
	s.audioRoutes(v1)
}
