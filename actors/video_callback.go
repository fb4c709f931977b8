package actors

import (
	"context"

	shlyuz "github.com/shlyuz/shlyuz"
)

// notifyVideo sends the job's callback, when it has one.
func (g *Gateway) notifyVideo(ctx context.Context, j shlyuz.VideoJob) {}
