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

// The escape codes a backslash may take besides u: '"', '\', '/', 'b', 'f',
// 'n', 'r', 't'.
DATA escBytes<>+0(SB)/8, $0x74726e66622f5c22
GLOBL escBytes<>(SB), RODATA|NOPTR, $8

// ESCOK ORs into Y2 the bytes of Y0 that are one of escBytes (Y3 a scratch).
#define ESCOK(R) \
	VPBROADCASTB escBytes<>+0(SB), Y3 \
	VPCMPEQB Y3, R, Y2 \
	VPBROADCASTB escBytes<>+1(SB), Y3 \
	VPCMPEQB Y3, R, Y3 \
	VPOR Y3, Y2, Y2 \
	VPBROADCASTB escBytes<>+2(SB), Y3 \
	VPCMPEQB Y3, R, Y3 \
	VPOR Y3, Y2, Y2 \
	VPBROADCASTB escBytes<>+3(SB), Y3 \
	VPCMPEQB Y3, R, Y3 \
	VPOR Y3, Y2, Y2 \
	VPBROADCASTB escBytes<>+4(SB), Y3 \
	VPCMPEQB Y3, R, Y3 \
	VPOR Y3, Y2, Y2 \
	VPBROADCASTB escBytes<>+5(SB), Y3 \
	VPCMPEQB Y3, R, Y3 \
	VPOR Y3, Y2, Y2 \
	VPBROADCASTB escBytes<>+6(SB), Y3 \
	VPCMPEQB Y3, R, Y3 \
	VPOR Y3, Y2, Y2 \
	VPBROADCASTB escBytes<>+7(SB), Y3 \
	VPCMPEQB Y3, R, Y3 \
	VPOR Y3, Y2, Y2

// func validBlocksAVX2(s []byte) (off int, q, bs, ctl uint64)
//
// stringBlocksAVX2 that also passes over the blocks whose only stops are
// escapes of one of escBytes (no escape enters a block: one cut by a block's
// end begins the next).
TEXT ·validBlocksAVX2(SB), NOSPLIT, $0-56
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), CX
	VPBROADCASTB blockBytes<>+0(SB), Y8
	VPBROADCASTB blockBytes<>+1(SB), Y9
	VPBROADCASTB blockBytes<>+2(SB), Y10
	MOVQ $0xAAAAAAAAAAAAAAAA, DI
	XORQ DX, DX

vloop:
	LEAQ 64(DX), BX
	CMPQ BX, CX
	JA vnone
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
	JNZ vfound
	MOVQ BX, DX
	JMP vloop

vfound:
	// R9 = q, R10 = bs, R11 = ctl
	VPMOVMSKB Y2, R9
	VPMOVMSKB Y3, AX
	SHLQ $32, AX
	ORQ AX, R9
	VPMOVMSKB Y4, R10
	VPMOVMSKB Y5, AX
	SHLQ $32, AX
	ORQ AX, R10
	VPMOVMSKB Y6, R11
	VPMOVMSKB Y7, AX
	SHLQ $32, AX
	ORQ AX, R11
	TESTQ R11, R11
	JNZ vret
	TESTQ R10, R10
	JZ vret
	// R12 = the bytes that may follow a backslash (not u)
	ESCOK(Y0)
	VPMOVMSKB Y2, R12
	ESCOK(Y1)
	VPMOVMSKB Y2, AX
	SHLQ $32, AX
	ORQ AX, R12
	// code = ((bs<<1 | odd) - bs) ^ odd; escaping = code & bs; escaped = code ^ bs
	MOVQ R10, AX
	SHLQ $1, AX
	ORQ DI, AX
	SUBQ R10, AX
	XORQ DI, AX
	MOVQ AX, R13
	ANDQ R10, R13
	XORQ R10, AX
	// a quote not escaped, or an escape of another byte, is for the caller
	MOVQ AX, R8
	NOTQ R8
	ANDQ R9, R8
	JNZ vret
	MOVQ R12, R8
	NOTQ R8
	ANDQ AX, R8
	JNZ vret
	SHRQ $63, R13
	SUBQ R13, BX
	MOVQ BX, DX
	JMP vloop

vret:
	VZEROUPPER
	MOVQ DX, off+24(FP)
	MOVQ R9, q+32(FP)
	MOVQ R10, bs+40(FP)
	MOVQ R11, ctl+48(FP)
	RET

vnone:
	VZEROUPPER
	MOVQ DX, off+24(FP)
	MOVQ $0, q+32(FP)
	MOVQ $0, bs+40(FP)
	MOVQ $0, ctl+48(FP)
	RET
