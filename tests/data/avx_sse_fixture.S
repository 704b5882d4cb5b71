/* SPDX-License-Identifier: BSD-3-Clause */
/* Functions with known AVX-to-SSE behaviour for tests/check_avx_sse.py's
 * self-check (never called: main returns at once). bad_* must be flagged,
 * good_* must not. */
	.text
	.globl main
	.type main, @function
main:
	xorl %eax, %eax
	ret
	.size main, .-main

/* 256-bit work, then ret without vzeroupper. */
	.type bad_ret, @function
bad_ret:
	vpaddq %ymm1, %ymm0, %ymm0
	ret
	.size bad_ret, .-bad_ret

/* The GCC 12 pattern: a sibcall to another function with the state dirty. */
	.type bad_tail, @function
bad_tail:
	vpaddq %ymm1, %ymm0, %ymm0
	vmovq %xmm0, %rax
	jmp helper
	.size bad_tail, .-bad_tail

/* Clean on one path, dirty on the other, joined before the ret. */
	.type bad_join, @function
bad_join:
	testq %rdi, %rdi
	je 1f
	vpaddq %ymm1, %ymm0, %ymm0
	vzeroupper
	jmp 2f
1:	vpxor %ymm2, %ymm2, %ymm2
2:	ret
	.size bad_join, .-bad_join

/* A call with the state dirty. */
	.type bad_call, @function
bad_call:
	vmovdqu64 (%rdi), %zmm3
	call helper
	vzeroupper
	ret
	.size bad_call, .-bad_call

/* A loop in 256 bits, vzeroupper before both ways out. */
	.type good_loop, @function
good_loop:
1:	vpaddq (%rdi), %ymm0, %ymm0
	addq $32, %rdi
	decq %rsi
	jne 1b
	testq %rdx, %rdx
	je 2f
	vzeroupper
	jmp helper
2:	vzeroupper
	ret
	.size good_loop, .-good_loop

/* Only ymm16-31 (EVEX): SSE cannot see them, nothing to clear. */
	.type good_evex_hi, @function
good_evex_hi:
	vpaddq %ymm17, %ymm16, %ymm16
	ret
	.size good_evex_hi, .-good_evex_hi

/* 128-bit VEX only. */
	.type good_xmm, @function
good_xmm:
	vpaddq %xmm1, %xmm0, %xmm0
	ret
	.size good_xmm, .-good_xmm

	.type helper, @function
helper:
	ret
	.size helper, .-helper

	.section .note.GNU-stack,"",@progbits
