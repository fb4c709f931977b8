package media

import (
	"bytes"
	"errors"
	"image"
	_ "image/gif" // the formats every upstream takes: their headers give the size
	_ "image/jpeg"
	_ "image/png"

	_ "golang.org/x/image/webp"
)

// ImageSize is an image's width and height in pixels, read from its header
// by the decoder of its format (PNG, JPEG, GIF or WebP); an image of another
// format, or whose header does not decode, is an error.
func ImageSize(b []byte) (width, height int, err error) {
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return 0, 0, errors.New("the image is not a PNG, JPEG, GIF or WebP whose header could be read")
	}
	if cfg.Width < 1 || cfg.Height < 1 {
		return 0, 0, errors.New("the image has no pixels")
	}
	return cfg.Width, cfg.Height, nil
}
