// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The library's ABI holds for programs built against 1.0: every field of
 * the frozen 1.0 header (tests/host/abi/1.0) at the same offset and size
 * in today's header, the same constants, and a 1.0 program (abi-old.c)
 * working with today's library when a newer kernel sends attributes and
 * events it has never heard of.  The exported symbols are checked by
 * test-symbols.sh.
 */
#include <stdio.h>
#include <string.h>

#include "guestlib.h"
#include <mnotify/mnotify.h>
#include "abi-fields.h"

static const struct abi_field now_fields[] = { ABI_FIELDS(ABI_ENTRY) };
static const struct abi_const now_consts[] = { ABI_CONSTANTS(ABI_CONST) };

int main(void)
{
	size_t nf = sizeof(now_fields) / sizeof(now_fields[0]);
	size_t nc = sizeof(now_consts) / sizeof(now_consts[0]);
	char why[256] = "";
	int bad = 0;

	if (nf != abi_old_nfields || nc != abi_old_nconsts)
		tap_bail("field lists differ");
	for (size_t i = 0; i < nf; i++) {
		if (now_fields[i].offset == abi_old_fields[i].offset &&
		    now_fields[i].size == abi_old_fields[i].size)
			continue;
		tap_diag("%s: 1.0 offset %zu size %zu, now %zu %zu", now_fields[i].name,
			 abi_old_fields[i].offset, abi_old_fields[i].size,
			 now_fields[i].offset, now_fields[i].size);
		bad++;
	}
	tap_ok(!bad, "%zu fields of 1.0's structs at the same offset and size", nf);
	bad = 0;
	for (size_t i = 0; i < nc; i++) {
		if (now_consts[i].value == abi_old_consts[i].value)
			continue;
		tap_diag("%s: 1.0 %ld, now %ld", now_consts[i].name, abi_old_consts[i].value,
			 now_consts[i].value);
		bad++;
	}
	tap_ok(!bad, "%zu constants of 1.0 unchanged", nc);
	tap_ok(abi_old_program(why, sizeof(why)) == 0,
	       "a 1.0 program gets a newer kernel's event whole, unknown attributes and commands ignored %s",
	       why);
	return tap_done();
}
