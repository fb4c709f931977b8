//go:build amd64 && !purego

#include "textflag.h"

// Byte splats for classify64.
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

// CHUNK classifies the sixteen bytes at off(SI) into bits sh… of R9 (hard:
// ≥ 0x80 or < 0x20, a signed compare), R10 (Latin), R11 (digits), R12
// (spaces) and R13 (backslashes). PCMPGTB A, B sets B = B > A, signed.
#define CHUNK(off, sh) \
	MOVOU off(SI), X0 \
	MOVO X8, X1 \
	PCMPGTB X0, X1 \
	PMOVMSKB X1, AX \
	SHLQ $sh, AX \
	ORQ AX, R9 \
	MOVO X0, X2 \
	POR X8, X2 \
	MOVO X2, X3 \
	PCMPGTB X9, X3 \
	MOVO X10, X4 \
	PCMPGTB X2, X4 \
	PAND X4, X3 \
	PMOVMSKB X3, AX \
	SHLQ $sh, AX \
	ORQ AX, R10 \
	MOVO X0, X3 \
	PCMPGTB X11, X3 \
	MOVO X12, X4 \
	PCMPGTB X0, X4 \
	PAND X4, X3 \
	PMOVMSKB X3, AX \
	SHLQ $sh, AX \
	ORQ AX, R11 \
	MOVO X0, X3 \
	PCMPEQB X8, X3 \
	PMOVMSKB X3, AX \
	SHLQ $sh, AX \
	ORQ AX, R12 \
	MOVO X0, X3 \
	PCMPEQB X13, X3 \
	PMOVMSKB X3, AX \
	SHLQ $sh, AX \
	ORQ AX, R13

// func classify64(b *[64]byte) (lat, dig, spc, esc, hard uint64)
TEXT ·classify64(SB), NOSPLIT, $0-48
	MOVQ b+0(FP), SI
	MOVOU splat20<>(SB), X8
	MOVOU splat60<>(SB), X9
	MOVOU splat7b<>(SB), X10
	MOVOU splat2f<>(SB), X11
	MOVOU splat3a<>(SB), X12
	MOVOU splat5c<>(SB), X13
	XORQ R9, R9
	XORQ R10, R10
	XORQ R11, R11
	XORQ R12, R12
	XORQ R13, R13
	CHUNK(0, 0)
	CHUNK(16, 16)
	CHUNK(32, 32)
	CHUNK(48, 48)
	MOVQ R10, lat+8(FP)
	MOVQ R11, dig+16(FP)
	MOVQ R12, spc+24(FP)
	MOVQ R13, esc+32(FP)
	MOVQ R9, hard+40(FP)
	RET
