// SPDX-License-Identifier: GPL-2.0
/* Entry point and the helpers the other sources call (linked, never run). */
#include <stdio.h>
#include <stdlib.h>

int big_frame(int n);
int var_frame(int n);
int dispatch(int op, int a, int b);
int maybe_cold(int x);

int sink(int x)
{
	return x ^ 0x55;
}

long sinkp(void *p)
{
	return (long)p & 0xff;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;

	printf("%d\n", big_frame(n) + var_frame(n) + dispatch(n, n, n) +
	       maybe_cold(n));
	return 0;
}
