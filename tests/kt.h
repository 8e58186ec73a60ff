/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny host test framework.  KT_TEST(name) { ... } registers a test; the
 * runner (tests/main.c) runs all, or those whose name contains argv[1], and
 * ends with "N passed, N failed".  KT_EXPECT* record a failure and go on;
 * KT_ASSERT* record it and leave the test; KT_SKIP(reason) leaves a test
 * that cannot run on this host ("ok NAME # SKIP reason", counted apart).
 */
#ifndef KUNWIND_KT_H
#define KUNWIND_KT_H

#include <stdio.h>
#include <string.h>

struct kt_test {
	const char *name;
	void (*fn)(void);
	struct kt_test *next;
};

void kt_register(struct kt_test *t);
void kt_fail(const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The current test cannot run here: counted as skipped, with the reason. */
void kt_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Directory of the tests (for fixtures), set by the runner. */
extern const char *kt_srcdir;
extern const char *kt_builddir;

#define KT_TEST(name)							\
	static void kt_fn_##name(void);					\
	static struct kt_test kt_t_##name = { #name, kt_fn_##name, NULL }; \
	__attribute__((constructor)) static void kt_reg_##name(void)	\
	{ kt_register(&kt_t_##name); }					\
	static void kt_fn_##name(void)

#define KT_SKIP(...)							\
	do { kt_skip(__VA_ARGS__); return; } while (0)
#define KT_EXPECT(c)							\
	do { if (!(c)) kt_fail(__FILE__, __LINE__, "%s", #c); } while (0)
#define KT_ASSERT(c)							\
	do { if (!(c)) { kt_fail(__FILE__, __LINE__, "%s", #c); return; } } while (0)
#define KT_EXPECT_EQ(a, b)						\
	do {								\
		unsigned long long _a = (unsigned long long)(a);	\
		unsigned long long _b = (unsigned long long)(b);	\
		if (_a != _b)						\
			kt_fail(__FILE__, __LINE__, "%s == %s: 0x%llx != 0x%llx", \
				#a, #b, _a, _b);			\
	} while (0)
#define KT_ASSERT_EQ(a, b)						\
	do {								\
		unsigned long long _a = (unsigned long long)(a);	\
		unsigned long long _b = (unsigned long long)(b);	\
		if (_a != _b) {						\
			kt_fail(__FILE__, __LINE__, "%s == %s: 0x%llx != 0x%llx", \
				#a, #b, _a, _b);			\
			return;						\
		}							\
	} while (0)
#define KT_EXPECT_STR(a, b)						\
	do {								\
		const char *_a = (a), *_b = (b);			\
		if (!_a || !_b || strcmp(_a, _b))			\
			kt_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", \
				#a, #b, _a ? _a : "(null)", _b ? _b : "(null)"); \
	} while (0)

#endif /* KUNWIND_KT_H */
