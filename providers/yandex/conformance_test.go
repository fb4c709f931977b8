package yandex_test

import (
	"testing"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/conformance"
	"github.com/shlyuz/shlyuz/providers/yandex"
)

// TestConformance runs the suite every adapter passes. YandexGPT's native text
// models take no image input, so the suite expects the image request refused.
func TestConformance(t *testing.T) {
	conformance.Run(t, conformance.Target{
		Name:     "yandex",
		NoVision: "YandexGPT's native completion API takes text only",
		New: func(t *testing.T, baseURL string) shlyuz.Provider {
			p, err := yandex.New(shlyuz.UpstreamConfig{
				Name: "yandex-fake", Protocol: "yandex", BaseURL: baseURL,
				FolderID: "b1gfakefolder", APIKey: "AQVN-fake-key",
			})
			if err != nil {
				t.Fatal(err)
			}
			return p
		},
	})
}

// TestImageConformance: YandexART (asynchronous operations) through the suite.
func TestImageConformance(t *testing.T) {
	conformance.RunImages(t, conformance.ImageTarget{
		Name: "yandex", Model: "yandex-art", Failed: "fault-failed", Size: "1024x1024",
		New: func(t *testing.T, baseURL string) shlyuz.ImageProvider {
			p, err := yandex.New(shlyuz.UpstreamConfig{Name: "yandex-fake", Protocol: "yandex", BaseURL: baseURL,
				FolderID: "b1gfakefolder", APIKey: "AQVN-fake-key"})
			if err != nil {
				t.Fatal(err)
			}
			return p
		},
	})
}
