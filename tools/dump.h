/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the commands of kunwind-dump share across its files: blob export
 * (kunwind-dump.c) for the loader (load.c); the sframe command (sfdump.c).
 */
#ifndef KUNWIND_TOOLS_DUMP_H
#define KUNWIND_TOOLS_DUMP_H

#include "engine.h"
#include "blob.h"

#define EXIT_OK		0
#define EXIT_BAD	1	/* malformed input */
#define EXIT_USAGE	2	/* usage or I/O error */

int kuw_dump_export(const char *in, int src, u8 **out, u64 *outlen,
		    struct kuw_blob *info, u32 *nfde);
int kuw_cmd_load(int argc, char **argv);
int kuw_cmd_sframe(int argc, char **argv);	/* sfdump.c */

#endif /* KUNWIND_TOOLS_DUMP_H */
