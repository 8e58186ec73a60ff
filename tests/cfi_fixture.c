// SPDX-License-Identifier: GPL-2.0
/* Helpers of the CFI tests; see cfi_fixture.h. */
#include <stdarg.h>
#include <stdlib.h>
#include "cfi_fixture.h"
#include "kt.h"

static int kcfi_on_fde(void *ctx, const struct kuw_fde_info *f)
{
	struct kcfi_col *c = ctx;

	if (c->nfde >= KCFI_MAX_FDES)
		return 78;
	c->fde[c->nfde].f = *f;
	c->fde[c->nfde].first = c->nrow;
	c->fde[c->nfde].n = 0;
	c->nfde++;
	return 0;
}

static bool kcfi_rule_eq(const struct kuw_rule *a, const struct kuw_rule *b)
{
	return a->cfa_kind == b->cfa_kind && a->cfa_reg == b->cfa_reg &&
		a->cfa_off == b->cfa_off && a->flags == b->flags &&
		a->nregs == b->nregs &&
		!memcmp(a->regs, b->regs, a->nregs * sizeof(a->regs[0]));
}

static int kcfi_on_row(void *ctx, u64 pc, const struct kuw_rule *r)
{
	struct kcfi_col *c = ctx;
	struct kcfi_fde *f;

	if (!c->nfde) {
		c->bad = 1;
		return 79;
	}
	f = &c->fde[c->nfde - 1];
	/* In the FDE, increasing, each row different from the one before. */
	if (pc < f->f.start || pc >= f->f.end ||
	    (f->n && (pc <= c->row[c->nrow - 1].pc ||
		      kcfi_rule_eq(&c->row[c->nrow - 1].r, r))))
		c->bad = 1;
	if (c->nrow >= KCFI_MAX_ROWS)
		return 78;
	c->row[c->nrow].pc = pc;
	c->row[c->nrow].r = *r;
	c->nrow++;
	f->n++;
	if (c->stop_at && c->nrow == c->stop_at)
		return 77;
	return 0;
}

struct kcfi_col *kcfi_col_new(void)
{
	struct kcfi_col *c = calloc(1, sizeof(*c));

	if (c)
		c->row = calloc(KCFI_MAX_ROWS, sizeof(*c->row));
	return c;
}

void kcfi_col_free(struct kcfi_col *c)
{
	if (c)
		free(c->row);
	free(c);
}

int kcfi_walk(const struct kuw_obj *o, const struct kuw_sec *s, bool debug,
	      struct kcfi_col *c, struct kuw_stats *st, struct kuw_diag *d)
{
	struct kuw_sink sink = { kcfi_on_fde, kcfi_on_row, c };

	return kuw_ehf_walk(o, s, debug, c ? &sink : NULL, st, d);
}

static int kcfi_sh(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int kcfi_sh(const char *fmt, ...)
{
	char cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

char *kcfi_build(const char *name, const char *asm_text, const char *as_flags)
{
	char src[512], obj[512], so[512];

	kcfi_sh("mkdir -p '%s'", kt_builddir);
	if (asm_text) {
		FILE *f;

		snprintf(src, sizeof(src), "%s/%s.s", kt_builddir, name);
		f = fopen(src, "w");
		if (!f)
			return NULL;
		fputs(asm_text, f);
		fclose(f);
	} else {
		snprintf(src, sizeof(src), "%s/asm/%s.s", kt_srcdir, name);
	}
	snprintf(obj, sizeof(obj), "%s/%s.o", kt_builddir, name);
	snprintf(so, sizeof(so), "%s/%s.so", kt_builddir, name);
	if (kcfi_sh("as %s -o '%s' '%s'", as_flags ? as_flags : "", obj, src))
		return NULL;
	if (kcfi_sh("ld -shared --eh-frame-hdr --build-id -o '%s' '%s'", so, obj))
		return NULL;
	return strdup(so);
}

/* Section @name of @e into *@s, if it is there with bytes. */
static bool kcfi_sec(const struct kuw_elf *e, const char *name,
		     struct kuw_sec *s)
{
	const struct kuw_elf_sec *es = kuw_elf_find(e, name);

	if (!es || !es->data)
		return false;
	kuw_elf_kuw_sec(es, s);
	return true;
}

int kcfi_load(struct kcfi_obj *x, const char *path)
{
	memset(x, 0, sizeof(*x));
	if (kuw_elf_open(&x->e, path) != KUW_ELF_OK)
		return -1;
	kuw_elf_obj(&x->e, path, &x->o);
	x->has_ehf = kcfi_sec(&x->e, ".eh_frame", &x->ehf);
	x->has_hdr = kcfi_sec(&x->e, ".eh_frame_hdr", &x->hdr);
	x->has_dbg = kcfi_sec(&x->e, ".debug_frame", &x->dbg);
	return 0;
}

bool kcfi_open_sec(struct kuw_elf *e, const char *path, const char *name,
		   struct kuw_obj *o, struct kuw_sec *s)
{
	if (kuw_elf_open(e, path) != KUW_ELF_OK)
		return false;
	if (!kcfi_sec(e, name, s) || !s->size) {
		kuw_elf_close(e);
		return false;
	}
	kuw_elf_obj(e, path, o);
	return true;
}

void kcfi_unload(struct kcfi_obj *x)
{
	kuw_elf_close(&x->e);
}

int kcfi_run_asm(const char *name, const char *asm_text, bool debug,
		 struct kcfi_obj *x, struct kcfi_col *c, struct kuw_diag *d)
{
	char *so = kcfi_build(name, asm_text, NULL);
	int ret;

	if (!so)
		return -1000;
	ret = kcfi_load(x, so);
	free(so);
	if (ret)
		return -1001;
	if (debug ? !x->has_dbg : !x->has_ehf)
		return -1002;
	return kcfi_walk(&x->o, debug ? &x->dbg : &x->ehf, debug, c, NULL, d);
}

const char *kcfi_fde_text(const struct kcfi_col *c, u32 i, u8 arch)
{
	static char buf[16384];
	u32 k, len = 0;
	const struct kuw_rule *prev = NULL;

	buf[0] = 0;
	if (i >= c->nfde)
		return buf;
	for (k = c->fde[i].first; k < c->fde[i].first + c->fde[i].n; k++) {
		const struct kcfi_row *r = &c->row[k];

		if (prev && kcfi_rule_eq(prev, &r->r))
			continue;
		prev = &r->r;
		if (len)
			buf[len++] = '\n';
		if (len + 256 >= sizeof(buf))
			break;
		kuw_format_row(buf + len, sizeof(buf) - len, arch,
			       r->pc - c->fde[i].f.start, &r->r);
		len += strlen(buf + len);
	}
	return buf;
}

const struct kuw_rule *kcfi_rule_at(const struct kcfi_col *c, u64 pc)
{
	u32 i, k;

	for (i = 0; i < c->nfde; i++) {
		const struct kcfi_fde *f = &c->fde[i];
		const struct kuw_rule *r = NULL;

		if (pc < f->f.start || pc >= f->f.end)
			continue;
		for (k = f->first; k < f->first + f->n; k++)
			if (c->row[k].pc <= pc)
				r = &c->row[k].r;
		return r;
	}
	return NULL;
}

/* ---- readelf --debug-dump=frames-interp ---- */

#define RE_MAX_COLS	40

struct re_fde {
	u64 start, end;
	int ncol;
	int col[RE_MAX_COLS];		/* DWARF number of each column, -1 CFA */
	u32 first, n;
};

struct re_row {
	u64 pc;
	char cfa[32];
	char val[RE_MAX_COLS][24];
};

static u8 re_arch;

static int re_regnum(const char *name)
{
	static const char *const x86[] = {
		"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp",
		"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "rip",
	};
	u32 i;

	if (re_arch == KUW_ARCH_ARM64) {
		if (!strcmp(name, "ra"))
			return 30;
		if (!strcmp(name, "sp"))
			return 31;
		if (!strcmp(name, "pc"))
			return 32;
		if (name[0] == 'x' && name[1] >= '0' && name[1] <= '9')
			return atoi(name + 1);
		return -2;
	}
	if (!strcmp(name, "ra"))
		return 16;
	for (i = 0; i < ARRAY_SIZE(x86); i++)
		if (!strcmp(name, x86[i]))
			return (int)i;
	if (name[0] == 'r' && name[1] >= '0' && name[1] <= '9')
		return atoi(name + 1);
	return -2;	/* a column we do not track (xmm...) */
}

/* Our rule of column @reg as readelf would print it ("-": no rule). */
static void our_val(const struct kuw_rule *r, int reg, char *out, size_t n)
{
	u32 i;

	snprintf(out, n, "-");
	for (i = 0; i < r->nregs; i++) {
		const struct kuw_reg_rule *rr = &r->regs[i];

		if (rr->reg != reg)
			continue;
		switch (rr->kind) {
		case KUW_R_SAME:
			snprintf(out, n, "s");
			break;
		case KUW_R_UNDEF:
			snprintf(out, n, "u");
			break;
		case KUW_R_OFFSET:
			snprintf(out, n, "c%+d", rr->off);
			break;
		case KUW_R_VAL_OFFSET:
			snprintf(out, n, "v%+d", rr->off);
			break;
		case KUW_R_REG:
			snprintf(out, n, "r%d", rr->src);
			break;
		case KUW_R_EXPR:
			snprintf(out, n, "exp");
			break;
		case KUW_R_VAL_EXPR:
			snprintf(out, n, "vexp");
			break;
		}
	}
}

static void our_cfa(const struct kuw_rule *r, char *out, size_t n)
{
	if (r->cfa_kind == KUW_CFA_EXPR)
		snprintf(out, n, "exp");
	else
		snprintf(out, n, "r%d%+d", r->cfa_reg, r->cfa_off);
}

/* readelf's "rsp+8" / "r12 (r12)" / "c-8" into our spelling. */
static void re_norm(const char *in, char *out, size_t n, bool cfa)
{
	char name[24];
	int reg, k = 0;

	if (cfa) {
		if (!strcmp(in, "exp")) {
			snprintf(out, n, "exp");
			return;
		}
		while (in[k] && in[k] != '+' && in[k] != '-' && k < 23) {
			name[k] = in[k];
			k++;
		}
		name[k] = 0;
		snprintf(out, n, "r%d%+d", re_regnum(name), atoi(in + k));
		return;
	}
	if ((in[0] == 'c' || in[0] == 'v') && (in[1] == '+' || in[1] == '-')) {
		snprintf(out, n, "%c%+d", in[0], atoi(in + 1));
		return;
	}
	reg = re_regnum(in);
	if (reg >= 0 && strcmp(in, "u") && strcmp(in, "s"))
		snprintf(out, n, "r%d", reg);
	else
		snprintf(out, n, "%s", in);
}

static const struct re_row *re_at(const struct re_row *rows,
				  const struct re_fde *f, u64 pc)
{
	const struct re_row *r = NULL;
	u32 k;

	for (k = f->first; k < f->first + f->n; k++)
		if (rows[k].pc <= pc)
			r = &rows[k];
	return r;
}

static int re_cmp_fde(const struct re_fde *rf, const struct re_row *rows,
		      const struct kcfi_col *c, const struct kcfi_fde *of,
		      u32 *nrows)
{
	u64 pcs[1024];
	u32 np = 0, k, i;
	int bad = 0, j;

	for (k = rf->first; k < rf->first + rf->n && np < 1024; k++)
		pcs[np++] = rows[k].pc;
	for (k = of->first; k < of->first + of->n && np < 1024; k++)
		pcs[np++] = c->row[k].pc;
	for (i = 0; i < np; i++) {
		const struct re_row *rr = re_at(rows, rf, pcs[i]);
		const struct kuw_rule *our = kcfi_rule_at(c, pcs[i]);
		char a[32], b[32];

		(*nrows)++;
		if (!rr || !our) {
			printf("  pc 0x%llx: row missing (readelf %d, ours %d)\n",
			       pcs[i], !!rr, !!our);
			bad++;
			continue;
		}
		re_norm(rr->cfa, a, sizeof(a), true);
		our_cfa(our, b, sizeof(b));
		if (strcmp(a, b)) {
			printf("  pc 0x%llx: cfa readelf %s ours %s\n",
			       pcs[i], a, b);
			bad++;
		}
		for (j = 0; j < rf->ncol; j++) {
			if (rf->col[j] < 0)
				continue;
			re_norm(rr->val[j], a, sizeof(a), false);
			our_val(our, rf->col[j], b, sizeof(b));
			/* readelf's "u" is also "no rule yet"; "s" is exact */
			if (!strcmp(a, b) || (!strcmp(a, "u") &&
					      !strcmp(b, "-")))
				continue;
			printf("  pc 0x%llx: r%d readelf %s ours %s\n",
			       pcs[i], rf->col[j], a, b);
			bad++;
		}
	}
	return bad;
}

int kcfi_readelf_compare(const char *path, bool debug, u8 arch,
			 const struct kcfi_col *c, u32 *nrows)
{
	static struct re_fde fdes[KCFI_MAX_FDES];
	static struct re_row rows[KCFI_MAX_ROWS];
	char cmd[1024], line[2048], *tok, *save;
	u32 nf = 0, nr = 0, i;
	bool in_sec = false;
	struct re_fde *cur = NULL;
	int bad = 0;
	FILE *p;

	*nrows = 0;
	re_arch = arch;
	snprintf(cmd, sizeof(cmd),
		 "readelf --debug-dump=frames-interp '%s' 2>/dev/null", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		unsigned long long a, b;
		char *q;

		if (!strncmp(line, "Contents of the ", 16)) {
			in_sec = !strncmp(line + 16, debug ? ".debug_frame" :
					  ".eh_frame ", debug ? 12 : 10);
			cur = NULL;
			continue;
		}
		if (!in_sec)
			continue;
		q = strstr(line, " FDE ");
		if (q && (q = strstr(line, "pc="))) {
			if (nf >= KCFI_MAX_FDES ||
			    sscanf(q, "pc=%llx..%llx", &a, &b) != 2)
				break;
			cur = &fdes[nf++];
			memset(cur, 0, sizeof(*cur));
			cur->start = a;
			cur->end = b;
			cur->first = nr;
			continue;
		}
		if (strstr(line, " CIE")) {
			cur = NULL;
			continue;
		}
		if (!cur)
			continue;
		if (strstr(line, "LOC") && strstr(line, "CFA")) {
			cur->ncol = 0;
			tok = strtok_r(line, " \n", &save);
			while ((tok = strtok_r(NULL, " \n", &save)) &&
			       cur->ncol < RE_MAX_COLS) {
				cur->col[cur->ncol++] = !strcmp(tok, "CFA") ?
					-1 : re_regnum(tok);
			}
			continue;
		}
		if (strlen(line) > 17 && line[16] == ' ' &&
		    strspn(line, "0123456789abcdef") == 16 &&
		    sscanf(line, "%llx", &a) == 1 && nr < KCFI_MAX_ROWS) {
			struct re_row *r = &rows[nr];
			int j = 0;

			memset(r, 0, sizeof(*r));
			r->pc = a;
			tok = strtok_r(line + 16, " \n", &save);
			while (tok && j < cur->ncol) {
				if (tok[0] == '(') {	/* "r14 (r14)" */
					tok = strtok_r(NULL, " \n", &save);
					continue;
				}
				if (cur->col[j] == -1)
					snprintf(r->cfa, sizeof(r->cfa), "%s",
						 tok);
				else
					snprintf(r->val[j], sizeof(r->val[j]),
						 "%s", tok);
				j++;
				tok = strtok_r(NULL, " \n", &save);
			}
			nr++;
			cur->n++;
		}
	}
	pclose(p);

	/* Our FDEs are reported in section order, as readelf prints them. */
	{
		u32 k = 0;

		for (i = 0; i < nf; i++) {
			/*
			 * We do not report empty FDEs, nor .debug_frame FDEs
			 * at 0 (sections the linker discarded).
			 */
			if (fdes[i].start == fdes[i].end ||
			    (debug && !fdes[i].start))
				continue;
			if (k >= c->nfde || c->fde[k].f.start != fdes[i].start ||
			    c->fde[k].f.end != fdes[i].end) {
				printf("  FDE %u: readelf 0x%llx-0x%llx\n", i,
				       fdes[i].start, fdes[i].end);
				return bad + 1;
			}
			/*
			 * readelf prints no row for an FDE without
			 * instructions; we report the CIE's rules once.
			 */
			if (!fdes[i].n) {
				if (c->fde[k].n != 1) {
					printf("  FDE %u: %u rows, none in "
					       "readelf\n", i, c->fde[k].n);
					bad++;
				}
			} else {
				bad += re_cmp_fde(&fdes[i], rows, c,
						  &c->fde[k], nrows);
			}
			k++;
		}
		if (k != c->nfde) {
			printf("  FDE count: readelf %u, ours %u\n", k, c->nfde);
			bad++;
		}
	}
	return nf ? bad : -1;
}
