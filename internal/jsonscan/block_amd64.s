//go:build amd64 && !purego

#include "textflag.h"

// The bytes stringBlocks looks for: '"', '\', and 0x1F (at most 0x1F is a
// control character).
DATA blockBytes<>+0(SB)/8, $0x1f5c22
GLOBL blockBytes<>(SB), RODATA|NOPTR, $8

// func stringBlocksAVX2(s []byte) (off int, q, bs, ctl uint64)
TEXT ·stringBlocksAVX2(SB), NOSPLIT, $0-56
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), CX
	VPBROADCASTB blockBytes<>+0(SB), Y8
	VPBROADCASTB blockBytes<>+1(SB), Y9
	VPBROADCASTB blockBytes<>+2(SB), Y10
	XORQ DX, DX

loop:
	LEAQ 64(DX), BX
	CMPQ BX, CX
	JA none
	VMOVDQU 0(SI)(DX*1), Y0
	VMOVDQU 32(SI)(DX*1), Y1
	VPCMPEQB Y8, Y0, Y2
	VPCMPEQB Y8, Y1, Y3
	VPCMPEQB Y9, Y0, Y4
	VPCMPEQB Y9, Y1, Y5
	VPMAXUB Y10, Y0, Y6
	VPCMPEQB Y10, Y6, Y6
	VPMAXUB Y10, Y1, Y7
	VPCMPEQB Y10, Y7, Y7
	VPOR Y2, Y4, Y11
	VPOR Y6, Y11, Y11
	VPOR Y3, Y5, Y12
	VPOR Y7, Y12, Y12
	VPOR Y11, Y12, Y12
	VPTEST Y12, Y12
	JNZ found
	MOVQ BX, DX
	JMP loop

found:
	VPMOVMSKB Y2, AX
	VPMOVMSKB Y3, R8
	SHLQ $32, R8
	ORQ R8, AX
	MOVQ AX, q+32(FP)
	VPMOVMSKB Y4, AX
	VPMOVMSKB Y5, R8
	SHLQ $32, R8
	ORQ R8, AX
	MOVQ AX, bs+40(FP)
	VPMOVMSKB Y6, AX
	VPMOVMSKB Y7, R8
	SHLQ $32, R8
	ORQ R8, AX
	MOVQ AX, ctl+48(FP)
	VZEROUPPER
	MOVQ DX, off+24(FP)
	RET

none:
	VZEROUPPER
	MOVQ DX, off+24(FP)
	MOVQ $0, q+32(FP)
	MOVQ $0, bs+40(FP)
	MOVQ $0, ctl+48(FP)
	RET

// SSE sets q, bs and ctl masks of the sixteen bytes at off(SI)(DX*1) into
// R9, R10, R11 at bit sh, and ORs them all into R12.
#define SSE(off, sh) \
	MOVOU off(SI)(DX*1), X0 \
	MOVO X0, X1 \
	PCMPEQB X8, X1 \
	PMOVMSKB X1, AX \
	SHLQ $sh, AX \
	ORQ AX, R9 \
	ORQ AX, R12 \
	MOVO X0, X1 \
	PCMPEQB X9, X1 \
	PMOVMSKB X1, AX \
	SHLQ $sh, AX \
	ORQ AX, R10 \
	ORQ AX, R12 \
	PMAXUB X10, X0 \
	PCMPEQB X10, X0 \
	PMOVMSKB X0, AX \
	SHLQ $sh, AX \
	ORQ AX, R11 \
	ORQ AX, R12

DATA splat22<>+0(SB)/8, $0x2222222222222222
DATA splat22<>+8(SB)/8, $0x2222222222222222
GLOBL splat22<>(SB), RODATA|NOPTR, $16
DATA splat5c<>+0(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA splat5c<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
GLOBL splat5c<>(SB), RODATA|NOPTR, $16
DATA splat1f<>+0(SB)/8, $0x1f1f1f1f1f1f1f1f
DATA splat1f<>+8(SB)/8, $0x1f1f1f1f1f1f1f1f
GLOBL splat1f<>(SB), RODATA|NOPTR, $16

// func stringBlocksSSE2(s []byte) (off int, q, bs, ctl uint64)
TEXT ·stringBlocksSSE2(SB), NOSPLIT, $0-56
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), CX
	MOVOU splat22<>(SB), X8
	MOVOU splat5c<>(SB), X9
	MOVOU splat1f<>(SB), X10
	XORQ DX, DX

sloop:
	LEAQ 64(DX), BX
	CMPQ BX, CX
	JA snone
	XORQ R9, R9
	XORQ R10, R10
	XORQ R11, R11
	XORQ R12, R12
	SSE(0, 0)
	SSE(16, 16)
	SSE(32, 32)
	SSE(48, 48)
	TESTQ R12, R12
	JNZ sfound
	MOVQ BX, DX
	JMP sloop

sfound:
	MOVQ DX, off+24(FP)
	MOVQ R9, q+32(FP)
	MOVQ R10, bs+40(FP)
	MOVQ R11, ctl+48(FP)
	RET

snone:
	MOVQ DX, off+24(FP)
	MOVQ $0, q+32(FP)
	MOVQ $0, bs+40(FP)
	MOVQ $0, ctl+48(FP)
	RET
