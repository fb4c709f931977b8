package videojob

import (
	"context"

	"github.com/shlyuz/shlyuz"
)

// NoChat is embedded by adapters of media-only upstreams (video, images):
// they serve no chat.
type NoChat struct{ Name string }

func (n NoChat) refuse() error {
	e := shlyuz.ErrProviderUnavailable(0, "The upstream %q generates media only; it serves no chat.", n.Name)
	return e
}

// Chat refuses.
func (n NoChat) Chat(context.Context, *shlyuz.UpstreamRequest) (*shlyuz.ChatResponse, error) {
	return nil, n.refuse()
}

// ChatStream refuses.
func (n NoChat) ChatStream(context.Context, *shlyuz.UpstreamRequest) (shlyuz.ChatStream, error) {
	return nil, n.refuse()
}
