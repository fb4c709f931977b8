package media

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// MP4Info is what ProbeMP4 read from a file.
type MP4Info struct {
	Seconds float64 // the video track's duration
	Samples int
	Codec   string // the video sample entry's format ("avc1")
}

// ProbeMP4 checks that data is a progressive MP4 with a video track whose
// samples lie inside its mdat, and returns the track's duration: ftyp first,
// moov/trak/mdia/hdlr "vide", an stsd entry, stts × mdhd timescale, stsz,
// and chunk offsets (stco or co64) within the file's mdat.
func ProbeMP4(data []byte) (MP4Info, error) {
	top, err := mp4Boxes(data)
	if err != nil {
		return MP4Info{}, err
	}
	if len(top) == 0 || top[0].typ != "ftyp" {
		return MP4Info{}, errors.New("mp4: the file does not begin with ftyp")
	}
	moov, ok := mp4Find(top, "moov")
	if !ok {
		return MP4Info{}, errors.New("mp4: no moov box")
	}
	mdat, ok := mp4Find(top, "mdat")
	if !ok {
		return MP4Info{}, errors.New("mp4: no mdat box")
	}
	traks, err := mp4Boxes(moov.body)
	if err != nil {
		return MP4Info{}, err
	}
	for _, t := range traks {
		if t.typ != "trak" {
			continue
		}
		info, video, err := mp4Track(t.body, mdat)
		if err != nil {
			return MP4Info{}, err
		}
		if video {
			return info, nil
		}
	}
	return MP4Info{}, errors.New("mp4: no video track")
}

type mp4Box struct {
	typ   string
	body  []byte
	start int // offset of the body in the buffer the box was read from
}

func mp4Boxes(b []byte) ([]mp4Box, error) {
	var out []mp4Box
	for off := 0; off < len(b); {
		if len(b)-off < 8 {
			return nil, errors.New("mp4: a truncated box header")
		}
		size := int64(binary.BigEndian.Uint32(b[off:]))
		typ := string(b[off+4 : off+8])
		hdr := 8
		switch size {
		case 0:
			size = int64(len(b) - off)
		case 1:
			if len(b)-off < 16 {
				return nil, errors.New("mp4: a truncated large box header")
			}
			size = int64(binary.BigEndian.Uint64(b[off+8:]))
			hdr = 16
		}
		if size < int64(hdr) || size > int64(len(b)-off) {
			return nil, fmt.Errorf("mp4: box %q has a bad size %d", typ, size)
		}
		out = append(out, mp4Box{typ: typ, body: b[off+hdr : off+int(size)], start: off + hdr})
		off += int(size)
	}
	return out, nil
}

func mp4Find(boxes []mp4Box, typ string) (mp4Box, bool) {
	for _, b := range boxes {
		if b.typ == typ {
			return b, true
		}
	}
	return mp4Box{}, false
}

// mp4Path descends through nested boxes by type.
func mp4Path(b []byte, path ...string) ([]byte, error) {
	for _, typ := range path {
		boxes, err := mp4Boxes(b)
		if err != nil {
			return nil, err
		}
		box, ok := mp4Find(boxes, typ)
		if !ok {
			return nil, fmt.Errorf("mp4: no %s box", typ)
		}
		b = box.body
	}
	return b, nil
}

// mp4Track reads one trak; video is false for a track that is not video.
func mp4Track(trak []byte, mdat mp4Box) (info MP4Info, video bool, err error) {
	hdlr, err := mp4Path(trak, "mdia", "hdlr")
	if err != nil || len(hdlr) < 12 {
		return info, false, errors.New("mp4: a track without a handler")
	}
	if string(hdlr[8:12]) != "vide" {
		return info, false, nil
	}
	mdhd, err := mp4Path(trak, "mdia", "mdhd")
	if err != nil || len(mdhd) < 24 {
		return info, true, errors.New("mp4: a video track without mdhd")
	}
	tsOff := 12
	if mdhd[0] == 1 {
		tsOff = 20
	}
	timescale := binary.BigEndian.Uint32(mdhd[tsOff:])
	if timescale == 0 {
		return info, true, errors.New("mp4: timescale 0")
	}
	stbl, err := mp4Path(trak, "mdia", "minf", "stbl")
	if err != nil {
		return info, true, err
	}
	boxes, err := mp4Boxes(stbl)
	if err != nil {
		return info, true, err
	}
	get := func(typ string, min int) ([]byte, error) {
		b, ok := mp4Find(boxes, typ)
		if !ok || len(b.body) < min {
			return nil, fmt.Errorf("mp4: no valid %s box", typ)
		}
		return b.body, nil
	}
	stsd, err := get("stsd", 16)
	if err != nil {
		return info, true, err
	}
	info.Codec = string(stsd[12:16])
	stts, err := get("stts", 8)
	if err != nil {
		return info, true, err
	}
	n := int(binary.BigEndian.Uint32(stts[4:]))
	if len(stts) < 8+8*n {
		return info, true, errors.New("mp4: stts is truncated")
	}
	var ticks, samples uint64
	for i := 0; i < n; i++ {
		c := uint64(binary.BigEndian.Uint32(stts[8+8*i:]))
		samples += c
		ticks += c * uint64(binary.BigEndian.Uint32(stts[12+8*i:]))
	}
	stsz, err := get("stsz", 12)
	if err != nil {
		return info, true, err
	}
	if count := uint64(binary.BigEndian.Uint32(stsz[8:])); count != samples || samples == 0 {
		return info, true, fmt.Errorf("mp4: stsz has %d samples, stts %d", count, samples)
	}
	if err := mp4Chunks(boxes, mdat); err != nil {
		return info, true, err
	}
	info.Samples = int(samples)
	info.Seconds = float64(ticks) / float64(timescale)
	return info, true, nil
}

// mp4Chunks checks that every chunk offset falls inside mdat's body.
func mp4Chunks(stbl []mp4Box, mdat mp4Box) error {
	lo, hi := uint64(mdat.start), uint64(mdat.start+len(mdat.body))
	in := func(o uint64) error {
		if o < lo || o >= hi {
			return fmt.Errorf("mp4: a chunk offset %d lies outside mdat [%d, %d)", o, lo, hi)
		}
		return nil
	}
	if b, ok := mp4Find(stbl, "stco"); ok && len(b.body) >= 8 {
		n := int(binary.BigEndian.Uint32(b.body[4:]))
		if len(b.body) < 8+4*n || n == 0 {
			return errors.New("mp4: stco is truncated")
		}
		for i := 0; i < n; i++ {
			if err := in(uint64(binary.BigEndian.Uint32(b.body[8+4*i:]))); err != nil {
				return err
			}
		}
		return nil
	}
	if b, ok := mp4Find(stbl, "co64"); ok && len(b.body) >= 8 {
		n := int(binary.BigEndian.Uint32(b.body[4:]))
		if len(b.body) < 8+8*n || n == 0 {
			return errors.New("mp4: co64 is truncated")
		}
		for i := 0; i < n; i++ {
			if err := in(binary.BigEndian.Uint64(b.body[8+8*i:])); err != nil {
				return err
			}
		}
		return nil
	}
	return errors.New("mp4: no chunk offsets")
}
