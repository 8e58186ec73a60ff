# Fixture: gcc -O2 -S output of small C functions (push/pop, alloca,
# early returns with remember/restore_state), with and without frame pointer.
	.file	"many.c"
	.text
	.p2align 4
	.globl	a
	.type	a, @function
a:
.LFB0:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	pushq	%rbx
	.cfi_def_cfa_offset 24
	.cfi_offset 3, -24
	movl	%edi, %ebx
	subq	$8, %rsp
	.cfi_def_cfa_offset 32
	call	g@PLT
	leal	1(%rbx), %edi
	movl	%eax, %ebp
	call	g@PLT
	addq	$8, %rsp
	.cfi_def_cfa_offset 24
	addl	%ebp, %eax
	popq	%rbx
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
.LFE0:
	.size	a, .-a
	.p2align 4
	.globl	b
	.type	b, @function
b:
.LFB1:
	.cfi_startproc
	pushq	%r14
	.cfi_def_cfa_offset 16
	.cfi_offset 14, -16
	pushq	%r13
	.cfi_def_cfa_offset 24
	.cfi_offset 13, -24
	pushq	%r12
	.cfi_def_cfa_offset 32
	.cfi_offset 12, -32
	pushq	%rbp
	.cfi_def_cfa_offset 40
	.cfi_offset 6, -40
	pushq	%rbx
	.cfi_def_cfa_offset 48
	.cfi_offset 3, -48
	testl	%edi, %edi
	jle	.L7
	movl	%edi, %r13d
	movl	%esi, %r14d
	xorl	%ebp, %ebp
	xorl	%ebx, %ebx
	xorl	%r12d, %r12d
	.p2align 4,,10
	.p2align 3
.L6:
	movl	%ebp, %edi
	addl	$1, %ebx
	addl	%r14d, %ebp
	call	g@PLT
	addl	%eax, %r12d
	cmpl	%ebx, %r13d
	jne	.L6
	cmpl	$100, %r12d
	jg	.L10
	popq	%rbx
	.cfi_remember_state
	.cfi_def_cfa_offset 40
	movl	%r12d, %eax
	popq	%rbp
	.cfi_def_cfa_offset 32
	popq	%r12
	.cfi_def_cfa_offset 24
	popq	%r13
	.cfi_def_cfa_offset 16
	popq	%r14
	.cfi_def_cfa_offset 8
	ret
	.p2align 4,,10
	.p2align 3
.L10:
	.cfi_restore_state
	popq	%rbx
	.cfi_remember_state
	.cfi_def_cfa_offset 40
	movl	%r12d, %edi
	popq	%rbp
	.cfi_def_cfa_offset 32
	popq	%r12
	.cfi_def_cfa_offset 24
	popq	%r13
	.cfi_def_cfa_offset 16
	popq	%r14
	.cfi_def_cfa_offset 8
	jmp	g@PLT
	.p2align 4,,10
	.p2align 3
.L7:
	.cfi_restore_state
	xorl	%r12d, %r12d
	popq	%rbx
	.cfi_def_cfa_offset 40
	popq	%rbp
	.cfi_def_cfa_offset 32
	movl	%r12d, %eax
	popq	%r12
	.cfi_def_cfa_offset 24
	popq	%r13
	.cfi_def_cfa_offset 16
	popq	%r14
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
.LFE1:
	.size	b, .-b
	.p2align 4
	.globl	c
	.type	c, @function
c:
.LFB2:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movslq	%edi, %rax
	movq	%rax, %rsi
	addq	$23, %rax
	andq	$-16, %rax
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	pushq	%rbx
	subq	$8, %rsp
	.cfi_offset 3, -24
	subq	%rax, %rsp
	leaq	15(%rsp), %rbx
	andq	$-16, %rbx
	movq	%rbx, %rdi
	call	h@PLT
	movsbl	(%rbx), %eax
	movq	-8(%rbp), %rbx
	leave
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LFE2:
	.size	c, .-c
	.p2align 4
	.globl	d
	.type	d, @function
d:
.LFB3:
	.cfi_startproc
	pushq	%r15
	.cfi_def_cfa_offset 16
	.cfi_offset 15, -16
	movq	%rcx, %r15
	pushq	%r14
	.cfi_def_cfa_offset 24
	.cfi_offset 14, -24
	movq	%rsi, %r14
	pushq	%r13
	.cfi_def_cfa_offset 32
	.cfi_offset 13, -32
	movq	%rdx, %r13
	pushq	%r12
	.cfi_def_cfa_offset 40
	.cfi_offset 12, -40
	movq	%r8, %r12
	pushq	%rbp
	.cfi_def_cfa_offset 48
	.cfi_offset 6, -48
	movq	%r9, %rbp
	pushq	%rbx
	.cfi_def_cfa_offset 56
	.cfi_offset 3, -56
	subq	$8, %rsp
	.cfi_def_cfa_offset 64
	call	g@PLT
	movslq	%eax, %rbx
	imulq	%r14, %rbx
	testq	%r13, %r13
	jne	.L19
.L14:
	movl	%ebp, %edi
	call	g@PLT
	addq	$8, %rsp
	.cfi_remember_state
	.cfi_def_cfa_offset 56
	cltq
	addq	%rbx, %rax
	popq	%rbx
	.cfi_def_cfa_offset 48
	popq	%rbp
	.cfi_def_cfa_offset 40
	popq	%r12
	.cfi_def_cfa_offset 32
	popq	%r13
	.cfi_def_cfa_offset 24
	popq	%r14
	.cfi_def_cfa_offset 16
	popq	%r15
	.cfi_def_cfa_offset 8
	ret
	.p2align 4,,10
	.p2align 3
.L19:
	.cfi_restore_state
	leal	(%r12,%rbp), %edi
	addl	%r15d, %edi
	call	g@PLT
	movl	%ebx, %edi
	movl	%eax, %r12d
	call	g@PLT
	imull	%eax, %r12d
	movslq	%r12d, %r12
	addq	%r12, %rbx
	jmp	.L14
	.cfi_endproc
.LFE3:
	.size	d, .-d
	.p2align 4
	.globl	e
	.type	e, @function
e:
.LFB4:
	.cfi_startproc
	testl	%edi, %edi
	js	.L23
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset 3, -16
	call	g@PLT
	movl	%eax, %edi
	movl	%eax, %ebx
	call	g@PLT
	addl	%eax, %ebx
	movl	%ebx, %edi
	call	g@PLT
	addl	%ebx, %eax
	popq	%rbx
	.cfi_def_cfa_offset 8
	ret
	.p2align 4,,10
	.p2align 3
.L23:
	.cfi_restore 3
	xorl	%eax, %eax
	ret
	.cfi_endproc
.LFE4:
	.size	e, .-e
	.p2align 4
	.globl	f2
	.type	f2, @function
f2:
.LFB5:
	.cfi_startproc
	movl	%edi, %esi
	subq	$264, %rsp
	.cfi_def_cfa_offset 272
	movd	%esi, %xmm0
	movq	%rsp, %rdi
	punpcklbw	%xmm0, %xmm0
	punpcklwd	%xmm0, %xmm0
	pshufd	$0, %xmm0, %xmm0
	movaps	%xmm0, (%rsp)
	movaps	%xmm0, 16(%rsp)
	movaps	%xmm0, 32(%rsp)
	movaps	%xmm0, 48(%rsp)
	movaps	%xmm0, 64(%rsp)
	movaps	%xmm0, 80(%rsp)
	movaps	%xmm0, 96(%rsp)
	movaps	%xmm0, 112(%rsp)
	movaps	%xmm0, 128(%rsp)
	movaps	%xmm0, 144(%rsp)
	movaps	%xmm0, 160(%rsp)
	movaps	%xmm0, 176(%rsp)
	movaps	%xmm0, 192(%rsp)
	movaps	%xmm0, 208(%rsp)
	movaps	%xmm0, 224(%rsp)
	movaps	%xmm0, 240(%rsp)
	call	h@PLT
	addq	$264, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
.LFE5:
	.size	f2, .-f2
	.p2align 4
	.globl	big
	.type	big, @function
big:
.LFB6:
	.cfi_startproc
	subq	$100008, %rsp
	.cfi_def_cfa_offset 100016
	movl	%edi, %esi
	movb	%dil, (%rsp)
	movq	%rsp, %rdi
	call	h@PLT
	movsbl	5(%rsp), %eax
	addq	$100008, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
.LFE6:
	.size	big, .-big
	.text
	.p2align 4
	.globl	a_fp
	.type	a_fp, @function
a_fp:
.LfpFB0:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	pushq	%r12
	pushq	%rbx
	.cfi_offset 12, -24
	.cfi_offset 3, -32
	movl	%edi, %ebx
	call	g@PLT
	leal	1(%rbx), %edi
	movl	%eax, %r12d
	call	g@PLT
	popq	%rbx
	addl	%r12d, %eax
	popq	%r12
	popq	%rbp
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LfpFE0:
	.size	a_fp, .-a_fp
	.p2align 4
	.globl	b_fp
	.type	b_fp, @function
b_fp:
.LfpFB1:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	pushq	%r15
	pushq	%r14
	pushq	%r13
	pushq	%r12
	pushq	%rbx
	subq	$8, %rsp
	.cfi_offset 15, -24
	.cfi_offset 14, -32
	.cfi_offset 13, -40
	.cfi_offset 12, -48
	.cfi_offset 3, -56
	testl	%edi, %edi
	jle	.Lfp7
	movl	%edi, %r14d
	movl	%esi, %r15d
	xorl	%r12d, %r12d
	xorl	%ebx, %ebx
	xorl	%r13d, %r13d
	.p2align 4,,10
	.p2align 3
.Lfp6:
	movl	%r12d, %edi
	addl	$1, %ebx
	addl	%r15d, %r12d
	call	g@PLT
	addl	%eax, %r13d
	cmpl	%ebx, %r14d
	jne	.Lfp6
	cmpl	$100, %r13d
	jg	.Lfp10
.Lfp4:
	addq	$8, %rsp
	movl	%r13d, %eax
	popq	%rbx
	popq	%r12
	popq	%r13
	popq	%r14
	popq	%r15
	popq	%rbp
	.cfi_remember_state
	.cfi_def_cfa 7, 8
	ret
	.p2align 4,,10
	.p2align 3
.Lfp10:
	.cfi_restore_state
	addq	$8, %rsp
	movl	%r13d, %edi
	popq	%rbx
	popq	%r12
	popq	%r13
	popq	%r14
	popq	%r15
	popq	%rbp
	.cfi_remember_state
	.cfi_def_cfa 7, 8
	jmp	g@PLT
	.p2align 4,,10
	.p2align 3
.Lfp7:
	.cfi_restore_state
	xorl	%r13d, %r13d
	jmp	.Lfp4
	.cfi_endproc
.LfpFE1:
	.size	b_fp, .-b_fp
	.p2align 4
	.globl	c_fp
	.type	c_fp, @function
c_fp:
.LfpFB2:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movslq	%edi, %rax
	movq	%rax, %rsi
	addq	$23, %rax
	andq	$-16, %rax
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	pushq	%rbx
	subq	$8, %rsp
	.cfi_offset 3, -24
	subq	%rax, %rsp
	leaq	15(%rsp), %rbx
	andq	$-16, %rbx
	movq	%rbx, %rdi
	call	h@PLT
	movsbl	(%rbx), %eax
	movq	-8(%rbp), %rbx
	leave
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LfpFE2:
	.size	c_fp, .-c_fp
	.p2align 4
	.globl	d_fp
	.type	d_fp, @function
d_fp:
.LfpFB3:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	pushq	%r15
	.cfi_offset 15, -24
	movq	%rcx, %r15
	pushq	%r14
	.cfi_offset 14, -32
	movq	%rdx, %r14
	pushq	%r13
	.cfi_offset 13, -40
	movq	%r8, %r13
	pushq	%r12
	.cfi_offset 12, -48
	movq	%r9, %r12
	pushq	%rbx
	.cfi_offset 3, -56
	movq	%rsi, %rbx
	subq	$8, %rsp
	call	g@PLT
	cltq
	imulq	%rax, %rbx
	testq	%r14, %r14
	jne	.Lfp19
.Lfp14:
	movl	%r12d, %edi
	call	g@PLT
	addq	$8, %rsp
	cltq
	addq	%rbx, %rax
	popq	%rbx
	popq	%r12
	popq	%r13
	popq	%r14
	popq	%r15
	popq	%rbp
	.cfi_remember_state
	.cfi_def_cfa 7, 8
	ret
	.p2align 4,,10
	.p2align 3
.Lfp19:
	.cfi_restore_state
	leal	0(%r13,%r12), %edi
	addl	%r15d, %edi
	call	g@PLT
	movl	%ebx, %edi
	movl	%eax, %r13d
	call	g@PLT
	imull	%eax, %r13d
	movslq	%r13d, %r13
	addq	%r13, %rbx
	jmp	.Lfp14
	.cfi_endproc
.LfpFE3:
	.size	d_fp, .-d_fp
	.p2align 4
	.globl	e_fp
	.type	e_fp, @function
e_fp:
.LfpFB4:
	.cfi_startproc
	testl	%edi, %edi
	js	.Lfp23
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	pushq	%rbx
	subq	$8, %rsp
	.cfi_offset 3, -24
	call	g@PLT
	movl	%eax, %edi
	movl	%eax, %ebx
	call	g@PLT
	addl	%eax, %ebx
	movl	%ebx, %edi
	call	g@PLT
	addl	%ebx, %eax
	movq	-8(%rbp), %rbx
	leave
	.cfi_def_cfa 7, 8
	ret
	.p2align 4,,10
	.p2align 3
.Lfp23:
	.cfi_restore 3
	.cfi_restore 6
	xorl	%eax, %eax
	ret
	.cfi_endproc
.LfpFE4:
	.size	e_fp, .-e_fp
	.p2align 4
	.globl	f2_fp
	.type	f2_fp, @function
f2_fp:
.LfpFB5:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movl	%edi, %esi
	movd	%esi, %xmm0
	punpcklbw	%xmm0, %xmm0
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	punpcklwd	%xmm0, %xmm0
	subq	$256, %rsp
	pshufd	$0, %xmm0, %xmm0
	leaq	-256(%rbp), %rdi
	movaps	%xmm0, -256(%rbp)
	movaps	%xmm0, -240(%rbp)
	movaps	%xmm0, -224(%rbp)
	movaps	%xmm0, -208(%rbp)
	movaps	%xmm0, -192(%rbp)
	movaps	%xmm0, -176(%rbp)
	movaps	%xmm0, -160(%rbp)
	movaps	%xmm0, -144(%rbp)
	movaps	%xmm0, -128(%rbp)
	movaps	%xmm0, -112(%rbp)
	movaps	%xmm0, -96(%rbp)
	movaps	%xmm0, -80(%rbp)
	movaps	%xmm0, -64(%rbp)
	movaps	%xmm0, -48(%rbp)
	movaps	%xmm0, -32(%rbp)
	movaps	%xmm0, -16(%rbp)
	call	h@PLT
	leave
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LfpFE5:
	.size	f2_fp, .-f2_fp
	.p2align 4
	.globl	big_fp
	.type	big_fp, @function
big_fp:
.LfpFB6:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset 6, -16
	movl	%edi, %esi
	movq	%rsp, %rbp
	.cfi_def_cfa_register 6
	subq	$100000, %rsp
	movb	%dil, -100000(%rbp)
	leaq	-100000(%rbp), %rdi
	call	h@PLT
	movsbl	-99995(%rbp), %eax
	leave
	.cfi_def_cfa 7, 8
	ret
	.cfi_endproc
.LfpFE6:
	.size	big_fp, .-big_fp
