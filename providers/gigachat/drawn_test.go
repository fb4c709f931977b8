package gigachat

import (
	"errors"
	"testing"
)

func TestDrawnImages(t *testing.T) {
	fetch := func(id string) ([]byte, error) {
		if id == "gone" {
			return nil, errors.New("404")
		}
		return []byte("jpeg:" + id), nil
	}
	cases := []struct {
		in, text string
		images   []string
		err      bool
	}{
		{`Вот: <img src="a1" fuse="true"/>`, "Вот:", []string{"data:image/jpeg;base64,anBlZzphMQ=="}, false},
		{`<img src="a" fuse="true"/> и <img src="b"/>`, "и", []string{"data:image/jpeg;base64,anBlZzph", "data:image/jpeg;base64,anBlZzpi"}, false},
		{"no picture", "no picture", nil, false},
		{`<img src="gone" fuse="true"/>`, "", nil, true},
	}
	for _, tc := range cases {
		text, images, err := drawnImages(tc.in, fetch)
		if (err != nil) != tc.err {
			t.Fatalf("%q: error %v", tc.in, err)
		}
		if err != nil {
			continue
		}
		if text != tc.text || len(images) != len(tc.images) {
			t.Fatalf("%q: %q, %d images", tc.in, text, len(images))
		}
		for i, img := range images {
			if img.Type != "image_url" || img.ImageURL.URL != tc.images[i] {
				t.Fatalf("%q: image %d %+v", tc.in, i, img)
			}
		}
	}
	if text, images, _ := drawnImages(`<img src="x"/>`, nil); text != `<img src="x"/>` || images != nil {
		t.Fatal("without a fetcher the tag must stay")
	}
}
