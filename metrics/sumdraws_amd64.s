//go:build !purego

#include "textflag.h"

// func sumDrawsAVX2(sums, rows []float64, draws []int, lo int)
//
// For each group of four draws, sums[i] = (((sums[i] + r0[i]) + r1[i]) +
// r2[i]) + r3[i], four lists (i) a VADDPD, then the lists left one at a
// time with VADDSD; the draws left after the groups of four are added one
// row at a time. The bounds are checked by the caller.
TEXT ·sumDrawsAVX2(SB), NOSPLIT, $0-80
	MOVQ sums_base+0(FP), DI
	MOVQ sums_len+8(FP), CX
	MOVQ rows_base+24(FP), SI
	MOVQ draws_base+48(FP), BX
	MOVQ draws_len+56(FP), DX
	MOVQ lo+72(FP), AX
	LEAQ (SI)(AX*8), SI
	MOVQ CX, R14
	ANDQ $-4, R14 // the lists summed four at a time

group:
	CMPQ DX, $4
	JLT  single
	MOVQ 0(BX), R8
	LEAQ (SI)(R8*8), R8
	MOVQ 8(BX), R9
	LEAQ (SI)(R9*8), R9
	MOVQ 16(BX), R10
	LEAQ (SI)(R10*8), R10
	MOVQ 24(BX), R11
	LEAQ (SI)(R11*8), R11
	XORQ R12, R12

group4:
	CMPQ    R12, R14
	JGE     group1
	VMOVUPD (DI)(R12*8), Y0
	VADDPD  (R8)(R12*8), Y0, Y0
	VADDPD  (R9)(R12*8), Y0, Y0
	VADDPD  (R10)(R12*8), Y0, Y0
	VADDPD  (R11)(R12*8), Y0, Y0
	VMOVUPD Y0, (DI)(R12*8)
	ADDQ    $4, R12
	JMP     group4

group1:
	CMPQ   R12, CX
	JGE    groupnext
	VMOVSD (DI)(R12*8), X0
	VADDSD (R8)(R12*8), X0, X0
	VADDSD (R9)(R12*8), X0, X0
	VADDSD (R10)(R12*8), X0, X0
	VADDSD (R11)(R12*8), X0, X0
	VMOVSD X0, (DI)(R12*8)
	INCQ   R12
	JMP    group1

groupnext:
	ADDQ $32, BX
	SUBQ $4, DX
	JMP  group

single:
	TESTQ DX, DX
	JEQ   done
	MOVQ  0(BX), R8
	LEAQ  (SI)(R8*8), R8
	XORQ  R12, R12

single4:
	CMPQ    R12, R14
	JGE     single1
	VMOVUPD (DI)(R12*8), Y0
	VADDPD  (R8)(R12*8), Y0, Y0
	VMOVUPD Y0, (DI)(R12*8)
	ADDQ    $4, R12
	JMP     single4

single1:
	CMPQ   R12, CX
	JGE    singlenext
	VMOVSD (DI)(R12*8), X0
	VADDSD (R8)(R12*8), X0, X0
	VMOVSD X0, (DI)(R12*8)
	INCQ   R12
	JMP    single1

singlenext:
	ADDQ $8, BX
	DECQ DX
	JMP  single

done:
	VZEROUPPER
	RET
