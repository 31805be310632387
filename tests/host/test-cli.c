// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The CLI's output helpers: task names in text output cannot break a line
 * or fake a field, and JSON strings are valid UTF-8 whatever the bytes.
 */
#include <stdio.h>
#include <string.h>

#include "clicommon.h"

static int failed;

static void check(int ok, const char *what, const char *got)
{
	printf("%s - %s: %s\n", ok ? "ok" : "not ok", what, got);
	failed |= !ok;
}

/* every byte of @s is ASCII, or part of a well-formed UTF-8 sequence */
static int valid_utf8(const unsigned char *s)
{
	while (*s) {
		int n = *s < 0x80 ? 0 : (*s & 0xe0) == 0xc0 ? 1 : (*s & 0xf0) == 0xe0 ? 2 :
			(*s & 0xf8) == 0xf0 ? 3 : -1;

		if (n < 0)
			return 0;
		s++;
		while (n--)
			if ((*s++ & 0xc0) != 0x80)
				return 0;
	}
	return 1;
}

int main(void)
{
	char buf[128];
	int i, n = 0;

	cli_text_escape(buf, sizeof(buf), "plain-name");
	check(!strcmp(buf, "plain-name"), "a plain name is printed as it is", buf);
	cli_text_escape(buf, sizeof(buf), "a b\nc\\d\x01\xff");
	check(!strcmp(buf, "a\\x20b\\x0ac\\x5cd\\x01\\xff"),
	      "space, newline, backslash, control and high bytes are escaped", buf);
	check(!strchr(buf, ' ') && !strchr(buf, '\n'), "no space or newline left", buf);
	cli_text_escape(buf, 8, "\n\n\n\n\n");
	check(strlen(buf) < 8 && !strchr(buf, '\n'), "truncation keeps whole escapes", buf);

	cli_json_string(buf, sizeof(buf), "x\"y\\z\n\xc3\x28\xff");
	check(!strcmp(buf, "\"x\\\"y\\\\z\\u000a\\u00c3(\\u00ff\""),
	      "JSON: quotes, backslash, control and high bytes escaped", buf);
	check(valid_utf8((const unsigned char *)buf), "JSON output is valid UTF-8", buf);
	for (i = 1; i < 256; i++) {
		char in[2] = { (char)i, 0 };

		cli_json_string(buf, sizeof(buf), in);
		n += valid_utf8((const unsigned char *)buf);
	}
	snprintf(buf, sizeof(buf), "%d of 255", n);
	check(n == 255, "every single byte gives valid UTF-8 JSON", buf);
	printf("1..9\n");
	return failed;
}
