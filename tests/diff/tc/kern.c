// SPDX-License-Identifier: GPL-2.0
/*
 * Freestanding, kernel-like C for the toolchain differential tests
 * (tests/difftest-tc.sh): built for x86_64 and AArch64 by each Debian
 * toolchain with -Wa,--gsframe, never run.  A realigned frame (GCC's DRAP
 * on x86_64: an SFrame v3 flexible FDE), a variable-size frame, a large
 * frame, recursion, calls and tail calls.
 */
typedef unsigned long size_t;

void ext_use(void *p, size_t n);
int ext_val(int x);
void ext_panic(const char *msg) __attribute__((noreturn));

int kern_realign(int n)
{
	char buf[64] __attribute__((aligned(64)));
	char *v = __builtin_alloca(n);

	__builtin_memset(buf, n, sizeof(buf));
	ext_use(buf, sizeof(buf));
	ext_use(v, n);
	return buf[n & 63] + v[0];
}

int kern_vla(int n)
{
	int a[n + 1];
	int i;

	for (i = 0; i <= n; i++)
		a[i] = ext_val(i);
	ext_use(a, sizeof(a));
	return a[n / 2];
}

int kern_big(int n)
{
	volatile char big[8192];

	big[n & 8191] = (char)n;
	ext_use((void *)big, sizeof(big));
	return big[(n * 7) & 8191];
}

int kern_recur(int n)
{
	if (n <= 0)
		return ext_val(0);
	return kern_recur(n - 1) + ext_val(n);
}

int kern_tail(int n)
{
	if (n < 0)
		ext_panic("negative");
	return ext_val(n * 3);
}

int kern_leaf(int a, int b)
{
	return a * b + (a ^ b);
}

long kern_entry(int n)
{
	return (long)kern_realign(n) + kern_vla(n) + kern_big(n) +
	       kern_recur(n) + kern_tail(n) + kern_leaf(n, n);
}
