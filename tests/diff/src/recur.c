// SPDX-License-Identifier: GPL-2.0
/* Recursion, switch tables and cold paths (compiled, never run). */
int sink(int x);

static int __attribute__((noinline)) fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

int dispatch(int op, int a, int b)
{
	switch (op) {
	case 0: return a + b;
	case 1: return a - sink(b);
	case 2: return a * fib(b);
	case 3: return sink(a) / (b | 1);
	case 4: return fib(a) ^ fib(b);
	case 5: return sink(sink(a));
	default: return -1;
	}
}

int __attribute__((cold, noinline)) cold_path(int x)
{
	return sink(x) * 3;
}

int maybe_cold(int x)
{
	if (__builtin_expect(x == 12345, 0))
		return cold_path(x) + 1;
	return x + 1;
}
