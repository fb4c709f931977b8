//go:build amd64 && !purego

#include "textflag.h"

DATA splat22<>+0(SB)/8, $0x2222222222222222
DATA splat22<>+8(SB)/8, $0x2222222222222222
GLOBL splat22<>(SB), RODATA|NOPTR, $16
DATA splat5c<>+0(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA splat5c<>+8(SB)/8, $0x5c5c5c5c5c5c5c5c
GLOBL splat5c<>(SB), RODATA|NOPTR, $16
DATA splat1f<>+0(SB)/8, $0x1f1f1f1f1f1f1f1f
DATA splat1f<>+8(SB)/8, $0x1f1f1f1f1f1f1f1f
GLOBL splat1f<>(SB), RODATA|NOPTR, $16

// STOPS sets AX to the mask of the sixteen bytes at off(SI)(DX*1) that are a
// quote, a backslash or at most 0x1F (max(x, 0x1F) == 0x1F, unsigned).
#define STOPS(off) \
	MOVOU off(SI)(DX*1), X0 \
	MOVO X0, X1 \
	PCMPEQB X8, X1 \
	MOVO X0, X2 \
	PCMPEQB X9, X2 \
	POR X2, X1 \
	PMAXUB X10, X0 \
	PCMPEQB X10, X0 \
	POR X0, X1 \
	PMOVMSKB X1, AX

// func stringStop(s []byte) int
TEXT ·stringStop(SB), NOSPLIT, $0-32
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), CX
	MOVOU splat22<>(SB), X8
	MOVOU splat5c<>(SB), X9
	MOVOU splat1f<>(SB), X10
	XORQ DX, DX

loop32:
	LEAQ 32(DX), BX
	CMPQ BX, CX
	JA loop16
	STOPS(0)
	TESTL AX, AX
	JNZ found
	STOPS(16)
	TESTL AX, AX
	JNZ found16
	MOVQ BX, DX
	JMP loop32

loop16:
	LEAQ 16(DX), BX
	CMPQ BX, CX
	JA tail
	STOPS(0)
	TESTL AX, AX
	JNZ found
	MOVQ BX, DX

tail:
	CMPQ DX, CX
	JAE done
	MOVBLZX (SI)(DX*1), AX
	CMPB AL, $0x22
	JEQ done
	CMPB AL, $0x5c
	JEQ done
	CMPB AL, $0x20
	JB done
	INCQ DX
	JMP tail

found16:
	ADDQ $16, DX

found:
	BSFL AX, AX
	ADDQ AX, DX

done:
	MOVQ DX, ret+24(FP)
	RET
