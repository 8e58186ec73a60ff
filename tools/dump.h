/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the commands of kunwind-dump share across its files: the ELF file,
 * validation and blob export (dump.c) for the commands (kunwind-dump.c)
 * and the loader (load.c); the load command (load.c) and the sframe
 * command (sfdump.c) for the command line (kunwind-dump.c).  Calls go
 * kunwind-dump.c -> load.c -> dump.c, never back.
 */
#ifndef KUNWIND_TOOLS_DUMP_H
#define KUNWIND_TOOLS_DUMP_H

#include "engine.h"
#include "blob.h"

#define EXIT_OK		0
#define EXIT_BAD	1	/* malformed input */
#define EXIT_USAGE	2	/* usage or I/O error */

struct kuw_elf;

/* dump.c */
extern const char *const kuw_prog;	/* "kunwind-dump", for messages */
int open_elf(struct kuw_elf *e, const char *path);
void print_diag(const char *path, const struct kuw_diag *d, int err,
		const char *fallback_sec);
bool get_sec(const struct kuw_elf *e, const char *name, struct kuw_sec *s);
int build_sec(const char *path, const struct kuw_elf *e,
	      const struct kuw_obj *o, u32 i, struct kuw_table **t);
int check_hdr(const char *path, const struct kuw_elf *e,
	      const struct kuw_obj *o, s64 *nent);
int validate(const char *path, const struct kuw_elf *e,
	     const struct kuw_obj *o, struct kuw_table **tab, s64 *hdr_nent);
void free_tables(struct kuw_table **tab);
int kuw_dump_export(const char *in, int src, u8 **out, u64 *outlen,
		    struct kuw_blob *info, u32 *nfde);

int kuw_cmd_load(int argc, char **argv);	/* load.c */
int kuw_cmd_sframe(int argc, char **argv);	/* sfdump.c */

#endif /* KUNWIND_TOOLS_DUMP_H */
