// SPDX-License-Identifier: GPL-2.0
/* What kern.c calls, so that a linked image can be made (never run). */
typedef unsigned long size_t;

void ext_use(void *p, size_t n)
{
	__asm__ volatile("" : : "r"(p), "r"(n) : "memory");
}

int ext_val(int x)
{
	return x + 1;
}

void ext_panic(const char *msg)
{
	for (;;)
		__asm__ volatile("" : : "r"(msg) : "memory");
}

void *memset(void *s, int c, size_t n)
{
	unsigned char *p = s;

	while (n--)
		*p++ = (unsigned char)c;
	return s;
}

long kern_entry(int n);

void _start(void)
{
	kern_entry(3);
	ext_panic("done");
}
