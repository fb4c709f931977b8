package bfl_test

import (
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/bfl"
	"github.com/shlyuz/shlyuz/providers/conformance"
)

// TestImageConformance: FLUX (tasks and signed samples) through the suite.
func TestImageConformance(t *testing.T) {
	conformance.RunImages(t, conformance.ImageTarget{
		Name: "bfl", Model: "flux-2-pro", Failed: "fault-error", Size: "1024x768",
		New: func(t *testing.T, baseURL string) shlyuz.ImageProvider {
			p, err := bfl.New(shlyuz.UpstreamConfig{Name: "fake-bfl", BaseURL: baseURL + "/bfl", APIKey: "bfl-key"})
			if err != nil {
				t.Fatal(err)
			}
			return p
		},
	})
}
