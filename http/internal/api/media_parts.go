package api

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"net/url"
	"path"
	"strings"

	shlyuz "github.com/shlyuz/shlyuz"
	"github.com/shlyuz/shlyuz/internal/partjson"
	"github.com/shlyuz/shlyuz/media"
	"github.com/shlyuz/shlyuz/tokens"
)

// mediaMessage and mediaPart are what MeasureMedia reads of chat's messages:
// the media parts every protocol's request becomes (image_url, input_audio,
// file, OpenRouter's video_url).
type mediaMessage struct {
	Content json.RawMessage `json:"content"`
}

type mediaPart struct {
	Type       string          `json:"type"`
	ImageURL   json.RawMessage `json:"image_url"` // {"url"} or, from some clients, the URL string
	VideoURL   json.RawMessage `json:"video_url"`
	InputAudio *struct {
		Data   string `json:"data"`
		Format string `json:"format"`
	} `json:"input_audio"`
	File *struct {
		FileData string `json:"file_data"`
		FileID   string `json:"file_id"`
	} `json:"file"`
}

// MeasureMedia measures every media part of chat's messages by what it
// holds, for the reservation (tokens.MediaPart, counted at each model by
// its provider's rule): an image by the size its header gives, a PDF by the
// pages a PDF reader counts, audio by its decoded duration's bound, video
// by its tracks' duration. An image by http(s) URL is counted as the
// model's largest image. What cannot be measured without fetching it (a
// document, audio or video by URL, a stored file's id) or at all (an image
// whose format is not read, a PDF the reader cannot open, audio whose frames
// cannot be walked, video that is not MP4) is refused with a 400 naming the
// part, before anything is reserved or sent upstream. param names the
// request's field in the client's protocol.
func MeasureMedia(messages json.RawMessage, param string) (*tokens.MediaParts, *shlyuz.Error) {
	var msgs []mediaMessage
	if err := json.Unmarshal(messages, &msgs); err != nil {
		return nil, shlyuz.ErrInvalidValue(param, "The messages are not valid: %s", err.Error())
	}
	out := &tokens.MediaParts{}
	for i, m := range msgs {
		if len(m.Content) == 0 || m.Content[0] != '[' {
			continue
		}
		var parts []*mediaPart
		if err := json.Unmarshal(m.Content, &parts); err != nil {
			return nil, shlyuz.ErrInvalidValue(param, "The messages are not valid: %s", err.Error())
		}
		for j, p := range parts {
			if p == nil || p.Type == "text" || p.Type == "refusal" {
				continue
			}
			mp, why := measurePart(p)
			if why != "" {
				return nil, shlyuz.ErrInvalidValue(param, "Message %d, part %d (%s): %s", i+1, j+1, p.Type, why)
			}
			out.Parts = append(out.Parts, mp)
		}
	}
	return out, nil
}

// measurePart measures one media part; why says what is wrong when it
// cannot be measured.
func measurePart(p *mediaPart) (tokens.MediaPart, string) {
	switch p.Type {
	case "image_url":
		u := partjson.URL(p.ImageURL)
		if isHTTP(u) {
			if kind := urlKind(u); kind != "" {
				return tokens.MediaPart{}, "a " + kind + " by URL cannot be measured before it is sent; send it inline as a base64 data URL."
			}
			return tokens.MediaPart{Kind: tokens.MediaImageURL}, ""
		}
		return measureData(u, "image/")
	case "video_url":
		u := partjson.URL(p.VideoURL)
		if isHTTP(u) {
			return tokens.MediaPart{}, "a video by URL cannot be measured before it is sent; send it inline as a base64 data URL of an MP4."
		}
		return measureData(u, "video/")
	case "input_audio":
		if p.InputAudio == nil || p.InputAudio.Data == "" {
			return tokens.MediaPart{}, "input_audio.data holds no audio."
		}
		b, ok := decodeBase64(p.InputAudio.Data)
		if !ok {
			return tokens.MediaPart{}, "input_audio.data is not base64."
		}
		return measureAudio(b)
	case "file":
		switch {
		case p.File == nil || p.File.FileData == "" && p.File.FileID == "":
			return tokens.MediaPart{}, "the file part holds no file_data."
		case p.File.FileData == "":
			return tokens.MediaPart{}, "a stored file (file_id) cannot be measured before it is sent; send its content as file_data, a base64 data URL."
		case isHTTP(p.File.FileData):
			return tokens.MediaPart{}, "a file by URL (a document, audio or video) cannot be measured before it is sent; send it inline as base64 (file_data, or a document's base64 source)."
		case !strings.HasPrefix(p.File.FileData, "data:"): // bare base64, as OpenAI's clients sometimes send a PDF
			b, ok := decodeBase64(p.File.FileData)
			if !ok {
				return tokens.MediaPart{}, "file_data is neither a data URL nor base64."
			}
			return measureBytes(b, "application/pdf")
		}
		return measureData(p.File.FileData, "application/pdf")
	}
	return tokens.MediaPart{}, "content parts of this type cannot be measured, and are not carried."
}

// measureData measures the content of a data URL (declared is the media
// type assumed when it names none).
func measureData(u, declared string) (tokens.MediaPart, string) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return tokens.MediaPart{}, "the part is neither an http(s) URL nor a data URL."
	}
	meta, data, ok := strings.Cut(rest, ",")
	if !ok {
		return tokens.MediaPart{}, "the data URL has no comma."
	}
	params := strings.Split(meta, ";")
	if mt := strings.ToLower(strings.TrimSpace(params[0])); mt != "" {
		declared = mt
	}
	var b []byte
	if strings.EqualFold(strings.TrimSpace(params[len(params)-1]), "base64") {
		if b, ok = decodeBase64(data); !ok {
			return tokens.MediaPart{}, "the data URL's data is not base64."
		}
	} else {
		s, err := url.PathUnescape(data)
		if err != nil {
			return tokens.MediaPart{}, "the data URL's data is not percent-encoded correctly."
		}
		b = []byte(s)
	}
	return measureBytes(b, declared)
}

// maxMediaSeconds bounds a duration read from a file's headers before it
// becomes whole seconds: a forged track may claim more than an int64 holds,
// which would wrap to a negative count and reserve next to nothing.
const maxMediaSeconds = 24 * 60 * 60

// measureBytes measures content by what its bytes are, the declared media
// type deciding only between audio and video in an MP4 container.
func measureBytes(b []byte, declared string) (tokens.MediaPart, string) {
	if len(b) == 0 {
		return tokens.MediaPart{}, "the part holds no data."
	}
	sniffed := media.SniffAudio(b)
	switch {
	case strings.Contains(string(b[:min(len(b), 1024)]), "%PDF-"): // readers look for it in the first kilobyte
		pages, err := media.PDFPages(b)
		if err != nil {
			return tokens.MediaPart{}, "the PDF could not be read (" + err.Error() + "); a PDF must open in a reader for its pages to be counted."
		}
		return tokens.MediaPart{Kind: tokens.MediaPDF, Pages: pages}, ""
	case sniffed == "m4a" || strings.HasPrefix(declared, "video/"):
		secs, err := media.MP4Seconds(b)
		if err != nil {
			return tokens.MediaPart{}, "the video could not be measured (" + err.Error() + "); video and M4A audio are measured in MP4 (or QuickTime) files with their moov box."
		}
		if !(secs <= maxMediaSeconds) {
			return tokens.MediaPart{}, "the file claims to play for longer than a day; no model takes that much media in one request."
		}
		kind := tokens.MediaVideo
		if strings.HasPrefix(declared, "audio/") {
			kind = tokens.MediaAudio
		}
		return tokens.MediaPart{Kind: kind, Seconds: int64(math.Ceil(secs))}, ""
	case sniffed != "" || strings.HasPrefix(declared, "audio/"):
		return measureAudio(b)
	}
	w, h, err := media.ImageSize(b)
	if err != nil {
		return tokens.MediaPart{}, err.Error() + "; send an image as PNG, JPEG, GIF or WebP, a PDF, MP4 video, or WAV, MP3, Ogg or FLAC audio."
	}
	return tokens.MediaPart{Kind: tokens.MediaImage, Width: w, Height: h}, ""
}

// measureAudio bounds audio's duration by walking its frames as decoders
// do (an M4A by its tracks' sample tables).
func measureAudio(b []byte) (tokens.MediaPart, string) {
	format := media.SniffAudio(b)
	if format == "m4a" {
		return measureBytes(b, "audio/mp4")
	}
	secs, measured := media.AudioSeconds(format, b)
	if !measured {
		return tokens.MediaPart{}, "the audio's duration could not be measured: send PCM WAV, MP3, Ogg (Opus or Vorbis) or FLAC with frames a decoder plays."
	}
	return tokens.MediaPart{Kind: tokens.MediaAudio, Seconds: secs.Ceil()}, ""
}

// WithMedia measures the media parts of chat's messages into est when the
// estimate's walk found any (MeasureMedia).
func WithMedia(est *tokens.PromptEstimate, messages json.RawMessage, param string) *shlyuz.Error {
	if est.Images == 0 {
		return nil
	}
	parts, err := MeasureMedia(messages, param)
	if err != nil {
		return err
	}
	est.Media = parts
	return nil
}

func isHTTP(u string) bool {
	l := strings.ToLower(u[:min(len(u), 8)])
	return strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://")
}

// urlKind names what a URL's extension says it holds when that is not an
// image ("" for an image or no extension).
func urlKind(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return ""
	}
	switch strings.ToLower(path.Ext(pu.Path)) {
	case ".pdf":
		return "PDF"
	case ".mp4", ".mov", ".webm", ".mkv", ".avi", ".mpeg", ".mpg", ".3gp", ".flv", ".wmv":
		return "video"
	case ".mp3", ".wav", ".ogg", ".oga", ".opus", ".flac", ".m4a", ".aac", ".aiff", ".weba":
		return "audio"
	}
	return ""
}

// decodeBase64 decodes standard or URL-safe base64, padded or not, spaces
// and line breaks between its characters allowed.
func decodeBase64(s string) ([]byte, bool) {
	s = strings.TrimSpace(s)
	if strings.ContainsAny(s, " \t\r\n") {
		s = strings.Map(func(r rune) rune {
			if r == ' ' || r == '\t' || r == '\r' || r == '\n' {
				return -1
			}
			return r
		}, s)
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, true
		}
	}
	return nil, false
}
