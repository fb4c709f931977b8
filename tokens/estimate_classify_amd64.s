//go:build amd64 && !purego

#include "textflag.h"

// Byte splats for classify64 (SSE2): 0x20, 0x60, 0x7b, 0x2f, 0x3a, '\',
// 'u', 'n', 't', 'r'.
DATA splat20<>+0(SB)/8, $0x2020202020202020
DATA splat20<>+8(SB)/8, $0x2020202020202020
GLOBL splat20<>(SB), RODATA|NOPTR, $16
DATA splat60<>+0(SB)/8, $0x6060606060606060
DATA splat60<>+8(SB)/8, $0x6060606060606060
GLOBL splat60<>(SB), RODATA|NOPTR, $16
DATA splat7b<>+0(SB)/8, $0x7b7b7b7b7b7b7b7b
DATA splat7b<>+8(SB)/8, $0x7b7b7b7b7b7b7b7b
GLOBL splat7b<>(SB), RODATA|NOPTR, $16
DATA splat2f<>+0(SB)/8, $0x2f2f2f2f2f2f2f2f
DATA splat2f<>+8(SB)/8, $0x2f2f2f2f2f2f2f2f
GLOBL splat2f<>(SB), RODATA|NOPTR, $16
DATA splat3a<>+0(SB)/8, $0x3a3a3a3a3a3a3a3a
DATA splat3a<>+8(SB)/8, $0x3a3a3a3a3a3a3a3a
GLOBL splat3a<>(SB), RODATA|NOPTR, $16
DATA splat5c<>+0(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA splat5c<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
GLOBL splat5c<>(SB), RODATA|NOPTR, $16
DATA splat75<>+0(SB)/8, $0x7575757575757575
DATA splat75<>+8(SB)/8, $0x7575757575757575
GLOBL splat75<>(SB), RODATA|NOPTR, $16
DATA splat6e<>+0(SB)/8, $0x6e6e6e6e6e6e6e6e
DATA splat6e<>+8(SB)/8, $0x6e6e6e6e6e6e6e6e
GLOBL splat6e<>(SB), RODATA|NOPTR, $16
DATA splat74<>+0(SB)/8, $0x7474747474747474
DATA splat74<>+8(SB)/8, $0x7474747474747474
GLOBL splat74<>(SB), RODATA|NOPTR, $16
DATA splat72<>+0(SB)/8, $0x7272727272727272
DATA splat72<>+8(SB)/8, $0x7272727272727272
GLOBL splat72<>(SB), RODATA|NOPTR, $16
DATA splat22<>+0(SB)/8, $0x2222222222222222
DATA splat22<>+8(SB)/8, $0x2222222222222222
GLOBL splat22<>(SB), RODATA|NOPTR, $16

// MASK ORs mask register AX, shifted by sh, into R.
#define MASK(sh, R) \
	SHLQ $sh, AX \
	ORQ AX, R

// CHUNK classifies the sixteen bytes at off(SI) into bits sh… of R9 (hard:
// ≥ 0x80 or < 0x20, a signed compare), R10 (Latin), R11 (digits), R12
// (spaces), R13 (backslashes), DX (quotes), BX ('u') and R8 ('n', 't', 'r').
// PCMPGTB A, B sets B = B > A, signed.
#define CHUNK(off, sh) \
	MOVOU off(SI), X0 \
	MOVO X8, X1 \
	PCMPGTB X0, X1 \
	PMOVMSKB X1, AX \
	MASK(sh, R9) \
	MOVO X0, X2 \
	POR X8, X2 \
	MOVO X2, X3 \
	PCMPGTB X9, X3 \
	MOVO X10, X4 \
	PCMPGTB X2, X4 \
	PAND X4, X3 \
	PMOVMSKB X3, AX \
	MASK(sh, R10) \
	MOVO X0, X3 \
	PCMPGTB X11, X3 \
	MOVO X12, X4 \
	PCMPGTB X0, X4 \
	PAND X4, X3 \
	PMOVMSKB X3, AX \
	MASK(sh, R11) \
	MOVO X0, X3 \
	PCMPEQB X8, X3 \
	PMOVMSKB X3, AX \
	MASK(sh, R12) \
	MOVO X0, X3 \
	PCMPEQB X13, X3 \
	PMOVMSKB X3, AX \
	MASK(sh, R13) \
	MOVO X0, X3 \
	PCMPEQB X5, X3 \
	PMOVMSKB X3, AX \
	MASK(sh, DX) \
	MOVO X0, X3 \
	PCMPEQB X14, X3 \
	PMOVMSKB X3, AX \
	MASK(sh, BX) \
	MOVO X0, X3 \
	PCMPEQB X15, X3 \
	MOVO X0, X4 \
	PCMPEQB X6, X4 \
	POR X4, X3 \
	PCMPEQB X7, X0 \
	POR X0, X3 \
	PMOVMSKB X3, AX \
	MASK(sh, R8)

// STORE writes the eight masks to *DI, in blockMasks' order.
#define STORE \
	MOVQ R10, 0(DI) \
	MOVQ R11, 8(DI) \
	MOVQ R12, 16(DI) \
	MOVQ R13, 24(DI) \
	MOVQ R9, 32(DI) \
	MOVQ BX, 40(DI) \
	MOVQ R8, 48(DI) \
	MOVQ DX, 56(DI)

// func classify64(b *[64]byte, k *blockMasks)
TEXT ·classify64(SB), NOSPLIT, $0-16
	MOVQ b+0(FP), SI
	MOVQ k+8(FP), DI
	MOVOU splat20<>(SB), X8
	MOVOU splat60<>(SB), X9
	MOVOU splat7b<>(SB), X10
	MOVOU splat2f<>(SB), X11
	MOVOU splat3a<>(SB), X12
	MOVOU splat5c<>(SB), X13
	MOVOU splat75<>(SB), X14
	MOVOU splat6e<>(SB), X15
	MOVOU splat74<>(SB), X6
	MOVOU splat72<>(SB), X7
	MOVOU splat22<>(SB), X5
	XORQ DX, DX
	XORQ R9, R9
	XORQ R10, R10
	XORQ R11, R11
	XORQ R12, R12
	XORQ R13, R13
	XORQ BX, BX
	XORQ R8, R8
	CHUNK(0, 0)
	CHUNK(16, 16)
	CHUNK(32, 32)
	CHUNK(48, 48)
	STORE
	RET

// The bytes for VPBROADCASTB in classifyBlocksAVX2, by offset: 0x1F and
// 0x9A (Latin: (c|0x20)+0x1F < 0x9A, signed, is 'a'..'z' and 'A'..'Z'),
// 0x50 and 0x8A (digits: c+0x50 < 0x8A, signed, is '0'..'9'), '\', '"',
// 'u', 'n', 0x20 (a space, and the bound of the hard bytes), 't', 'r'.
DATA blockBytes<>+0(SB)/8, $0x6e75225c8a509a1f
DATA blockBytes<>+8(SB)/8, $0x0000000000727420
GLOBL blockBytes<>(SB), RODATA|NOPTR, $16

// BITS2 ORs the byte masks of Y2 (bytes 0…31) and Y3 (32…63) into R.
// BX is clobbered.
#define BITS2(R) \
	VPMOVMSKB Y2, R \
	VPMOVMSKB Y3, BX \
	SHLQ $32, BX \
	ORQ BX, R

// func classifyBlocksAVX2(b *byte, n int, r *blockRuns) int
//
// Registers: Y0, Y1 the block's halves; Y8 0x20, Y9 0x1F, Y10 0x9A, Y11
// 0x50, Y12 0x8A, Y13 '\', Y5 '"', Y14 'u', Y15 'n', Y6 't', Y7 'r'; R9 the
// hard bytes (then the stops), R10 the Latin letters, R11 the digits (then
// the escaped 'u'), R12 the spaces, R13 the backslashes, DX the quotes, R8
// 'n', 't', 'r' (then the escaped ones); CX the end of the n blocks.
// VPCMPGTB A, B, C sets C = B > A, signed.
TEXT ·classifyBlocksAVX2(SB), NOSPLIT, $0-32
	MOVQ b+0(FP), SI
	MOVQ n+8(FP), CX
	MOVQ r+16(FP), DI
	SHLQ $6, CX
	ADDQ SI, CX
	VPBROADCASTB blockBytes<>+8(SB), Y8
	VPBROADCASTB blockBytes<>+0(SB), Y9
	VPBROADCASTB blockBytes<>+1(SB), Y10
	VPBROADCASTB blockBytes<>+2(SB), Y11
	VPBROADCASTB blockBytes<>+3(SB), Y12
	VPBROADCASTB blockBytes<>+4(SB), Y13
	VPBROADCASTB blockBytes<>+5(SB), Y5
	VPBROADCASTB blockBytes<>+6(SB), Y14
	VPBROADCASTB blockBytes<>+7(SB), Y15
	VPBROADCASTB blockBytes<>+9(SB), Y6
	VPBROADCASTB blockBytes<>+10(SB), Y7

block:
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1

	// hard: 0x20 > c, signed (≥ 0x80 or < 0x20)
	VPCMPGTB Y0, Y8, Y2
	VPCMPGTB Y1, Y8, Y3
	BITS2(R9)

	// Latin
	VPOR Y8, Y0, Y2
	VPOR Y8, Y1, Y3
	VPADDB Y9, Y2, Y2
	VPADDB Y9, Y3, Y3
	VPCMPGTB Y2, Y10, Y2
	VPCMPGTB Y3, Y10, Y3
	BITS2(R10)

	// digits
	VPADDB Y11, Y0, Y2
	VPADDB Y11, Y1, Y3
	VPCMPGTB Y2, Y12, Y2
	VPCMPGTB Y3, Y12, Y3
	BITS2(R11)
	MOVQ R11, 8(DI)

	// spaces
	VPCMPEQB Y8, Y0, Y2
	VPCMPEQB Y8, Y1, Y3
	BITS2(R12)

	// quotes
	VPCMPEQB Y5, Y0, Y2
	VPCMPEQB Y5, Y1, Y3
	BITS2(DX)

	// backslashes
	VPCMPEQB Y13, Y0, Y2
	VPCMPEQB Y13, Y1, Y3
	BITS2(R13)
	TESTQ R13, R13
	JNZ escapes
	ORQ DX, R9
	MOVQ R10, 0(DI)
	MOVQ R12, 16(DI)
	MOVQ R13, 24(DI)
	MOVQ R9, 32(DI)
	MOVQ R13, 40(DI)
	JMP next

escapes:
	// 'u', and 'n', 't', 'r'
	VPCMPEQB Y14, Y0, Y2
	VPCMPEQB Y14, Y1, Y3
	BITS2(R11)
	VPCMPEQB Y15, Y0, Y2
	VPCMPEQB Y15, Y1, Y3
	VPCMPEQB Y6, Y0, Y4
	VPOR Y4, Y2, Y2
	VPCMPEQB Y6, Y1, Y4
	VPOR Y4, Y3, Y3
	VPCMPEQB Y7, Y0, Y4
	VPOR Y4, Y2, Y2
	VPCMPEQB Y7, Y1, Y4
	VPOR Y4, Y3, Y3
	BITS2(R8)

	// The escaped bytes are ((esc<<1 | odd) - esc) ^ odd ^ esc, the
	// escaping backslashes esc and not escaped (runsOf).
	MOVQ R13, AX
	SHLQ $1, AX
	MOVQ $0xAAAAAAAAAAAAAAAA, BX
	ORQ BX, AX
	SUBQ R13, AX
	XORQ BX, AX
	XORQ R13, AX
	ANDQ AX, R8
	ANDQ AX, R11
	MOVQ AX, BX
	NOTQ BX
	ANDQ BX, DX
	ORQ DX, R9
	ANDQ BX, R13
	MOVQ R8, BX
	NOTQ BX
	ANDQ BX, R10
	ORQ R8, R12
	MOVQ R10, 0(DI)
	MOVQ R12, 16(DI)
	MOVQ R13, 24(DI)
	MOVQ R9, 32(DI)
	MOVQ R11, 40(DI)
	ORQ R11, R9

next:
	ADDQ $64, SI
	ADDQ $48, DI
	TESTQ R9, R9
	JNZ done
	CMPQ SI, CX
	JB block

done:
	VZEROUPPER
	SUBQ b+0(FP), SI
	SHRQ $6, SI
	MOVQ SI, ret+24(FP)
	RET
