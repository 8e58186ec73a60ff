# SFrame fixture: linked with `ld -shared`, ld adds SFrame FDEs for .plt
# (PCINC for the PLT header, PCMASK for the 16-byte PLT entries).
	.text
	.globl	sfr_caller
	.type	sfr_caller, @function
sfr_caller:
	.cfi_startproc
	subq	$8, %rsp
	.cfi_def_cfa_offset 16
	call	sfr_ext1@PLT
	call	sfr_ext2@PLT
	call	sfr_ext3@PLT
	addq	$8, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	sfr_caller, .-sfr_caller
