package gigachat

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strings"

	"github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/providers/internal/upstream"
)

// image is a picture a client sent, ready to upload.
type image struct {
	mime string
	data []byte
}

// imageTypes are the picture formats GigaChat takes, with a file extension each.
var imageTypes = map[string]string{
	"image/jpeg": "jpg",
	"image/png":  "png",
	"image/tiff": "tiff",
	"image/bmp":  "bmp",
}

// parseImageURL reads an image_url: only data: URLs are taken. The gateway
// does not fetch images from links for GigaChat (that would let clients make
// it reach arbitrary addresses); the client sends the bytes inline.
func parseImageURL(u, param string) (*image, error) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return nil, shlyuz.ErrInvalidValue(param, "GigaChat takes images inline only: send the image as a data: URL (data:image/png;base64,…), not a link.")
	}
	meta, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return nil, shlyuz.ErrInvalidValue(param, "The image's data: URL has no data.")
	}
	var data []byte
	if m, isB64 := strings.CutSuffix(meta, ";base64"); isB64 {
		meta = m
		payload = strings.TrimSpace(payload)
		var err error
		data, err = base64.StdEncoding.DecodeString(payload)
		if err != nil {
			data, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(payload, "="))
		}
		if err != nil {
			return nil, shlyuz.ErrInvalidValue(param, "The image's data: URL is not valid base64.")
		}
	} else {
		s, err := url.PathUnescape(payload)
		if err != nil {
			return nil, shlyuz.ErrInvalidValue(param, "The image's data: URL is not valid.")
		}
		data = []byte(s)
	}
	if len(data) == 0 {
		return nil, shlyuz.ErrInvalidValue(param, "The image is empty.")
	}
	mt, _, _ := mime.ParseMediaType(meta)
	if mt == "image/jpg" {
		mt = "image/jpeg"
	}
	if _, ok := imageTypes[mt]; !ok {
		// No type, or a generic one: go by the bytes.
		sniffed, _, _ := mime.ParseMediaType(http.DetectContentType(data))
		if _, known := imageTypes[sniffed]; known && (mt == "" || mt == "application/octet-stream") {
			mt = sniffed
		} else {
			return nil, shlyuz.ErrInvalidValue(param, "GigaChat takes JPEG, PNG, TIFF and BMP images; this one is %s.", orUnknown(mt))
		}
	}
	return &image{mime: mt, data: data}, nil
}

func orUnknown(mt string) string {
	if mt == "" {
		return "of an unknown type"
	}
	return mt
}

// upload stores an image with the files API (POST /files, multipart: file
// and purpose=general) and returns its id, to pass in attachments.
func (p *Provider) upload(ctx context.Context, img *image) (string, error) {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="file"; filename="image.`+imageTypes[img.mime]+`"`)
	h.Set("Content-Type", img.mime)
	part, _ := mw.CreatePart(h)
	_, _ = part.Write(img.data)
	_ = mw.WriteField("purpose", "general")
	_ = mw.Close()
	payload, contentType := body.Bytes(), mw.FormDataContentType()

	resp, err := p.send(ctx, func() (*http.Request, error) {
		r, err := http.NewRequestWithContext(ctx, http.MethodPost, p.filesURL, bytes.NewReader(payload))
		if err != nil {
			return nil, err
		}
		r.Header = p.header.Clone()
		r.Header.Set("Content-Type", contentType)
		r.Header.Set("Accept", "application/json")
		return r, nil
	})
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		data := upstream.ReadErrorBody(resp.Body)
		e := statusError(p.cfg.Name, resp.StatusCode, resp.Header, data, p.now())
		if e.Status == http.StatusBadRequest {
			e.Message = "GigaChat refused the image: " + e.Message
			param := "messages"
			e.Param = &param
		}
		return "", e
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, upstream.MaxErrorBytes))
	if err != nil {
		return "", err
	}
	var f struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(data, &f) != nil || f.ID == "" {
		e := upstream.Malformed("the file upload's reply has no file id")
		e.Cause = fmt.Errorf("gigachat %s: upload reply %q", p.cfg.Name, upstream.Clip(string(data)))
		return "", e
	}
	return f.ID, nil
}

// wantsImage reports whether the client asked for image output (modalities).
func wantsImage(f map[string]json.RawMessage) bool {
	var modalities []string
	return json.Unmarshal(f["modalities"], &modalities) == nil && slices.Contains(modalities, "image")
}

// maxDrawn bounds a picture GigaChat drew.
const maxDrawn = 32 << 20

// download fetches a file GigaChat made (GET /files/{id}/content, JPEG).
func (p *Provider) download(ctx context.Context, id string) ([]byte, error) {
	resp, err := p.send(ctx, func() (*http.Request, error) {
		r, err := http.NewRequestWithContext(ctx, http.MethodGet, p.filesURL+"/"+url.PathEscape(id)+"/content", nil)
		if err != nil {
			return nil, err
		}
		r.Header = p.header.Clone()
		r.Header.Del("Content-Type")
		r.Header.Set("Accept", "application/jpg")
		return r, nil
	})
	if err != nil {
		return nil, errs.Call(p.cfg.Name, ctx, nil, err, true)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, statusError(p.cfg.Name, resp.StatusCode, resp.Header, upstream.ReadErrorBody(resp.Body), p.now())
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxDrawn))
	if err != nil {
		return nil, errs.Call(p.cfg.Name, ctx, nil, err, true)
	}
	return data, nil
}
