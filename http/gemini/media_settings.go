package gemini

import (
	"strings"

	shlyuz "github.com/shlyuz/shlyuz"
)

// mediaSettings refuses what would make Gemini count a media part above
// the reservation's measure (api.MeasureMedia, at Gemini's default
// rates): a video sampled at more than a frame a second (a part's
// videoMetadata.fps), or a high media resolution (generationConfig's or a
// part's mediaResolution), which counts a PDF page or a video frame up to
// several times the default. The native body goes upstream as the client
// wrote it, so these would reach Gemini unmeasured.
func mediaSettings(r *generateRequest) *shlyuz.Error {
	if g := r.GenerationConfig; g != nil && highResolution(g.MediaResolution) {
		return shlyuz.ErrInvalidValue("generationConfig.mediaResolution",
			"The gateway reserves media at Gemini's default resolution; leave mediaResolution unset or at LOW or MEDIUM, not %q.", g.MediaResolution)
	}
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			if v := p.VideoMetadata; v != nil && v.FPS != nil && *v.FPS > 1 {
				return shlyuz.ErrInvalidValue("contents", "The gateway reserves video at a frame a second, Gemini's default; videoMetadata.fps %g would be counted above it.", *v.FPS)
			}
			if highResolution(string(p.MediaResolution)) {
				return shlyuz.ErrInvalidValue("contents", "The gateway reserves media at Gemini's default resolution; a part's mediaResolution may be LOW or MEDIUM, not %s.", p.MediaResolution)
			}
		}
	}
	return nil
}

// highResolution reports a mediaResolution above the default: the
// generation config's enum, or a part's object naming its level.
func highResolution(v string) bool {
	return strings.Contains(strings.ToUpper(v), "HIGH")
}
