package mediatest

import (
	"bytes"
	"encoding/binary"
)

// MP4 makes a real, playable MP4 of the given length: H.264 Baseline, 32×32,
// 2 frames a second, every frame an IDR picture of I_PCM macroblocks (raw
// samples, so no real encoder is needed), in a progressive MP4 (ftyp, moov,
// mdat). ffprobe reports exactly `seconds` as its duration.
func MP4(seconds int) []byte {
	const fps = 2
	return mp4(max(seconds*fps, 1), mp4Timescale/fps)
}

// MP4Still is an MP4 of one frame shown for the given seconds: a player
// (and an upstream sampling a frame a second) plays all of them, in a file
// of a few kilobytes.
func MP4Still(seconds int) []byte {
	return mp4(1, uint32(seconds*mp4Timescale))
}

const mp4Timescale = 1000

// mp4 is frames I_PCM pictures of 32×32, each shown for delta ticks of
// mp4Timescale.
func mp4(frames int, delta uint32) []byte {
	const w, h, timescale = 32, 32, mp4Timescale
	sps, pps := h264SPS(w/16, h/16), h264PPS()
	var mdat bytes.Buffer
	sizes := make([]uint32, frames)
	for i := range frames {
		nal := h264IDR(w/16*(h/16), i, byte(16+i*7%200))
		_ = binary.Write(&mdat, binary.BigEndian, uint32(len(nal)))
		mdat.Write(nal)
		sizes[i] = uint32(4 + len(nal))
	}
	durMS := uint32(frames) * delta
	ftyp := box("ftyp", []byte("isom"), u32(512), []byte("isomiso2avc1mp41"))
	build := func(chunkOffset uint32) []byte {
		avcC := box("avcC", []byte{1, 66, 0xC0, 10, 0xFF, 0xE1}, u16(uint16(len(sps))), sps, []byte{1}, u16(uint16(len(pps))), pps)
		avc1 := box("avc1", make([]byte, 6), u16(1), make([]byte, 16), u16(w), u16(h), u32(0x00480000), u32(0x00480000),
			u32(0), u16(1), make([]byte, 32), u16(0x18), u16(0xFFFF), avcC)
		stsz := []byte{}
		for _, s := range sizes {
			stsz = append(stsz, u32(s)...)
		}
		stbl := box("stbl",
			full("stsd", 0, 0, u32(1), avc1),
			full("stts", 0, 0, u32(1), u32(uint32(frames)), u32(delta)),
			full("stsc", 0, 0, u32(1), u32(1), u32(uint32(frames)), u32(1)),
			full("stsz", 0, 0, u32(0), u32(uint32(frames)), stsz),
			full("stco", 0, 0, u32(1), u32(chunkOffset)))
		minf := box("minf", full("vmhd", 0, 1, make([]byte, 8)),
			box("dinf", full("dref", 0, 0, u32(1), full("url ", 0, 1))), stbl)
		mdia := box("mdia",
			full("mdhd", 0, 0, u32(0), u32(0), u32(timescale), u32(durMS), u16(0x55C4), u16(0)),
			full("hdlr", 0, 0, u32(0), []byte("vide"), make([]byte, 12), []byte("VideoHandler\x00")),
			minf)
		tkhd := full("tkhd", 0, 3, u32(0), u32(0), u32(1), u32(0), u32(durMS), make([]byte, 8), u16(0), u16(0), u16(0), u16(0),
			matrix(), u32(w<<16), u32(h<<16))
		mvhd := full("mvhd", 0, 0, u32(0), u32(0), u32(timescale), u32(durMS), u32(0x00010000), u16(0x0100), make([]byte, 10),
			matrix(), make([]byte, 24), u32(2))
		return box("moov", mvhd, box("trak", tkhd, mdia))
	}
	moov := build(0)
	moov = build(uint32(len(ftyp) + len(moov) + 8)) // the same length: only the offset's value changes
	out := append(append(ftyp, moov...), box("mdat", mdat.Bytes())...)
	return out
}

func u16(v uint16) []byte { return binary.BigEndian.AppendUint16(nil, v) }
func u32(v uint32) []byte { return binary.BigEndian.AppendUint32(nil, v) }

func matrix() []byte {
	return bytes.Join([][]byte{u32(0x00010000), u32(0), u32(0), u32(0), u32(0x00010000), u32(0), u32(0), u32(0), u32(0x40000000)}, nil)
}

func box(typ string, parts ...[]byte) []byte {
	body := bytes.Join(parts, nil)
	return append(append(u32(uint32(8+len(body))), typ...), body...)
}

func full(typ string, version byte, flags uint32, parts ...[]byte) []byte {
	return box(typ, append([]byte{version, byte(flags >> 16), byte(flags >> 8), byte(flags)}, bytes.Join(parts, nil)...))
}

// bits writes an H.264 RBSP.
type bits struct {
	buf  []byte
	n    uint // bits used in the last byte
	cur  byte
	used bool
}

func (b *bits) bit(v uint) {
	b.cur = b.cur<<1 | byte(v&1)
	b.n++
	if b.n == 8 {
		b.buf = append(b.buf, b.cur)
		b.cur, b.n = 0, 0
	}
}

func (b *bits) u(n int, v uint) {
	for i := n - 1; i >= 0; i-- {
		b.bit(v >> uint(i))
	}
}

func (b *bits) ue(v uint) {
	v++
	n := 0
	for t := v; t > 1; t >>= 1 {
		n++
	}
	b.u(n, 0)
	b.u(n+1, v)
}

func (b *bits) align() {
	for b.n != 0 {
		b.bit(0)
	}
}

// trailing ends the RBSP: a stop bit, then zeros to the byte boundary.
func (b *bits) trailing() []byte {
	b.bit(1)
	b.align()
	return b.buf
}

// nal wraps an RBSP with its header byte and emulation-prevention bytes.
func nal(header byte, rbsp []byte) []byte {
	out := []byte{header}
	zeros := 0
	for _, c := range rbsp {
		if zeros >= 2 && c <= 3 {
			out = append(out, 3)
			zeros = 0
		}
		out = append(out, c)
		if c == 0 {
			zeros++
		} else {
			zeros = 0
		}
	}
	return out
}

func h264SPS(mbW, mbH int) []byte {
	var b bits
	b.u(8, 66)   // profile_idc: Baseline
	b.u(8, 0xC0) // constraint_set0 and 1
	b.u(8, 10)   // level_idc 1.0
	b.ue(0)      // seq_parameter_set_id
	b.ue(0)      // log2_max_frame_num_minus4
	b.ue(2)      // pic_order_cnt_type
	b.ue(1)      // max_num_ref_frames
	b.u(1, 0)    // gaps_in_frame_num_value_allowed_flag
	b.ue(uint(mbW - 1))
	b.ue(uint(mbH - 1))
	b.u(1, 1) // frame_mbs_only_flag
	b.u(1, 1) // direct_8x8_inference_flag
	b.u(1, 0) // frame_cropping_flag
	b.u(1, 0) // vui_parameters_present_flag
	return nal(0x67, b.trailing())
}

func h264PPS() []byte {
	var b bits
	b.ue(0)   // pic_parameter_set_id
	b.ue(0)   // seq_parameter_set_id
	b.u(1, 0) // entropy_coding_mode_flag: CAVLC
	b.u(1, 0) // bottom_field_pic_order_in_frame_present_flag
	b.ue(0)   // num_slice_groups_minus1
	b.ue(0)   // num_ref_idx_l0_default_active_minus1
	b.ue(0)   // num_ref_idx_l1_default_active_minus1
	b.u(1, 0) // weighted_pred_flag
	b.u(2, 0) // weighted_bipred_idc
	b.ue(0)   // pic_init_qp_minus26 (se 0)
	b.ue(0)   // pic_init_qs_minus26 (se 0)
	b.ue(0)   // chroma_qp_index_offset (se 0)
	b.u(1, 0) // deblocking_filter_control_present_flag
	b.u(1, 0) // constrained_intra_pred_flag
	b.u(1, 0) // redundant_pic_cnt_present_flag
	return nal(0x68, b.trailing())
}

// h264IDR is one IDR slice of mbs I_PCM macroblocks, every luma sample luma.
func h264IDR(mbs, frame int, luma byte) []byte {
	var b bits
	b.ue(0)               // first_mb_in_slice
	b.ue(7)               // slice_type: I, every slice
	b.ue(0)               // pic_parameter_set_id
	b.u(4, 0)             // frame_num
	b.ue(uint(frame % 2)) // idr_pic_id: consecutive IDR pictures differ
	b.u(1, 0)             // no_output_of_prior_pics_flag
	b.u(1, 0)             // long_term_reference_flag
	b.ue(0)               // slice_qp_delta (se 0)
	for range mbs {
		b.ue(25) // mb_type I_PCM
		b.align()
		for range 256 {
			b.u(8, uint(luma))
		}
		for range 128 {
			b.u(8, 128)
		}
	}
	return nal(0x65, b.trailing())
}
