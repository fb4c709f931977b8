package media

import (
	"encoding/binary"
	"errors"
	"math"
)

// MP4Seconds is how long an MP4 (or QuickTime) file plays: the longest of
// its tracks' sample tables (every sample's duration, added up, over its
// track's timescale) and of the movie header's duration, so neither a short
// header over long tracks nor a short video track beside a long audio track
// makes it shorter than what a player shows. A file whose boxes do not
// parse, or with no track of samples, is an error: a fragmented MP4 (moof)
// is not read.
func MP4Seconds(data []byte) (float64, error) {
	top, err := mp4Boxes(data)
	if err != nil {
		return 0, err
	}
	moov, ok := mp4Find(top, "moov")
	if !ok {
		return 0, errors.New("mp4: no moov box")
	}
	boxes, err := mp4Boxes(moov.body)
	if err != nil {
		return 0, err
	}
	var longest float64
	if mvhd, ok := mp4Find(boxes, "mvhd"); ok {
		longest = mp4HeaderSeconds(mvhd.body)
	}
	tracks := 0
	for _, t := range boxes {
		if t.typ != "trak" {
			continue
		}
		secs, ok := mp4TrackSeconds(t.body)
		if !ok {
			continue
		}
		tracks++
		longest = max(longest, secs)
	}
	if tracks == 0 {
		return 0, errors.New("mp4: no track with samples")
	}
	return longest, nil
}

// mp4HeaderSeconds is an mvhd or mdhd box's duration over its timescale (0
// when the box is short or its timescale 0).
func mp4HeaderSeconds(h []byte) float64 {
	if len(h) < 20 {
		return 0
	}
	if h[0] == 1 {
		if len(h) < 32 {
			return 0
		}
		if ts, d := binary.BigEndian.Uint32(h[20:]), binary.BigEndian.Uint64(h[24:]); ts > 0 && d != math.MaxUint64 {
			return float64(d) / float64(ts)
		}
		return 0
	}
	if ts, d := binary.BigEndian.Uint32(h[12:]), binary.BigEndian.Uint32(h[16:]); ts > 0 && d != math.MaxUint32 {
		return float64(d) / float64(ts)
	}
	return 0 // no timescale, or the all-ones duration that means "unknown"
}

// mp4TrackSeconds is a track's duration: its stts durations over its mdhd
// timescale, or the mdhd's own duration when that is longer; ok false for
// a track without samples.
func mp4TrackSeconds(trak []byte) (float64, bool) {
	mdhd, err := mp4Path(trak, "mdia", "mdhd")
	if err != nil || len(mdhd) < 20 {
		return 0, false
	}
	tsOff := 12
	if mdhd[0] == 1 {
		tsOff = 20
	}
	if len(mdhd) < tsOff+4 {
		return 0, false
	}
	timescale := binary.BigEndian.Uint32(mdhd[tsOff:])
	if timescale == 0 {
		return 0, false
	}
	stts, err := mp4Path(trak, "mdia", "minf", "stbl", "stts")
	if err != nil || len(stts) < 8 {
		return 0, false
	}
	n := uint64(binary.BigEndian.Uint32(stts[4:]))
	if uint64(len(stts)) < 8+8*n {
		return 0, false
	}
	var ticks float64 // a float: counts × durations of 32 bits each may pass 64 bits
	var samples uint64
	for i := uint64(0); i < n; i++ {
		c := binary.BigEndian.Uint32(stts[8+8*i:])
		samples += uint64(c)
		ticks += float64(c) * float64(binary.BigEndian.Uint32(stts[12+8*i:]))
	}
	if samples == 0 {
		return 0, false
	}
	return max(ticks/float64(timescale), mp4HeaderSeconds(mdhd)), true
}
