// SPDX-License-Identifier: GPL-2.0
/* Varied frame shapes for the differential tests (compiled, never run). */
#include <alloca.h>
#include <string.h>

int sink(int x);
long sinkp(void *p);

/* Large fixed frame. */
int big_frame(int n)
{
	char buf[4096];

	memset(buf, n, sizeof(buf));
	return sink(buf[n & 4095]) + buf[7];
}

/* Variable-sized frame: needs a frame pointer. */
int var_frame(int n)
{
	char *p = alloca(n + 16);

	memset(p, 1, n + 16);
	return sink(p[n / 2]) + 1;
}

/* Many callee-saved registers live across calls. */
long many_saved(long a, long b, long c, long d, long e, long f)
{
	long x = sink(a), y = sink(b), z = sink(c), u = sink(d), v = sink(e);
	long w = sink(f);

	return x * y + z * u + v * w + sink((int)(x + y + z + u + v + w));
}

/* Leaf without a frame. */
long leaf(long a, long b)
{
	return a * 31 + (b >> 3);
}

/* Tail call. */
int tail(int x)
{
	if (x > 100)
		return sink(x - 1);
	return sink(x + 1) + 2;
}

/* Several exits with different stack depths. */
int branches(int *v, int n)
{
	int s = 0, i;

	for (i = 0; i < n; i++) {
		if (v[i] < 0)
			return sink(s);
		if (v[i] > 1000)
			s += (int)sinkp(&v[i]);
		else
			s += sink(v[i]);
	}
	return s;
}

/* Variadic function (register save area). */
#include <stdarg.h>
int vsum(int n, ...)
{
	va_list ap;
	int s = 0;

	va_start(ap, n);
	while (n-- > 0)
		s += sink(va_arg(ap, int));
	va_end(ap);
	return s;
}
