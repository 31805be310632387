// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the mem_notify generic netlink family: random and mutated requests
 * (commands, flags, reserved byte, attribute types, flags and lengths,
 * nesting, truncation, dumps), half as root and half as an unprivileged
 * user.  Checks: every error reply carries a real errno; an error that
 * points at an attribute also carries a message; unprivileged requests
 * never succeed in setting oom_victim; afterwards oom_victim holds what the
 * last successful root SET put there and the family still answers.
 *
 * Deterministic: the seed is printed; MNOTIFY_FUZZ_SEED and
 * MNOTIFY_FUZZ_COUNT (default 100000 total, 20000 on the debug kernel) replay
 * or resize a run.
 */
#define _GNU_SOURCE
#include "guestlib.h"

#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include <mnotify/mnotify.h>
#include "internal.h"
#include "uapi/linux/mem_notify.h"

#define SYSCTL "/proc/sys/vm/oom_victim"

static uint64_t rng;

static uint64_t rnd(void)
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 0x2545F4914F6CDD1Dull;
}

static unsigned int rn(unsigned int n)
{
	return (unsigned int)(rnd() % n);
}

struct result {
	unsigned long sent, acks, errors, no_reply, bad_errno, offs_without_msg;
	unsigned long set_ok, set_ok_unpriv, dumps;
	unsigned long set_mismatch;	/* succeeded, but the value is not what was sent */
	unsigned long changed_on_error;	/* failed, but the value changed */
	unsigned long by_errno[5];	/* EINVAL, EOPNOTSUPP, EPERM, ERANGE, other */
};

static struct result *mmap_shared_result(void)
{
	void *p = mmap(NULL, sizeof(struct result), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		tap_bail("mmap");
	memset(p, 0, sizeof(struct result));
	return p;
}

/* append one attribute; returns new length */
static size_t put(char *buf, size_t off, size_t cap, uint16_t type, const void *d, size_t n)
{
	struct nlattr a;

	if (off + NLA_ALIGN(NLA_HDRLEN + n) > cap)
		return off;
	a.nla_len = (uint16_t)(NLA_HDRLEN + n);
	a.nla_type = type;
	memcpy(buf + off, &a, sizeof(a));
	memcpy(buf + off + NLA_HDRLEN, d, n);
	return off + NLA_ALIGN(NLA_HDRLEN + n);
}

/*
 * Build one request into @b.  Returns its length; *@wire is what nlmsg_len
 * says (differs when the message is deliberately truncated or padded);
 * *@name gets the string of a well-formed SET (else "\x01").
 */
static size_t build(char *b, size_t cap, int family, uint32_t seq, int *expect_reply,
		    char *name, uint8_t *cmd_out, uint16_t *flags_out)
{
	static const uint16_t flag_pool[] = {
		0, NLM_F_DUMP, NLM_F_ECHO, NLM_F_REPLACE, NLM_F_EXCL, NLM_F_CREATE,
		NLM_F_APPEND, NLM_F_ROOT, NLM_F_MATCH, NLM_F_MULTI, 0x800, 0x1000,
	};
	struct nlmsghdr *h = (struct nlmsghdr *)b;
	struct genlmsghdr *g;
	size_t off = NLMSG_HDRLEN + GENL_HDRLEN;
	unsigned int kind = rn(100), i, n;
	char data[64];
	uint8_t cmd;
	uint16_t flags = NLM_F_REQUEST | NLM_F_ACK;

	memset(b, 0, NLMSG_HDRLEN + GENL_HDRLEN);
	name[0] = '\1';
	name[1] = '\0';
	/* mostly real commands, sometimes anything */
	if (rn(10) < 8)
		cmd = (uint8_t)(MEM_NOTIFY_CMD_UNSPEC + rn(MEM_NOTIFY_CMD_MAX + 2));
	else
		cmd = (uint8_t)rn(256);
	if (rn(4) == 0)
		flags |= flag_pool[rn(sizeof(flag_pool) / sizeof(flag_pool[0]))];
	if (rn(50) == 0)
		flags &= (uint16_t)~NLM_F_ACK;

	if (kind < 30 && cmd == MEM_NOTIFY_CMD_SET_OOM_VICTIM) {
		/* a mutated valid SET: length 0..20, maybe NUL inside, maybe no NUL */
		n = rn(21);
		for (i = 0; i < n; i++)
			data[i] = (char)(rn(8) ? 'a' + rn(26) : rn(256));
		if (rn(3))
			data[n++] = '\0';
		off = put(b, off, cap, MEM_NOTIFY_A_OOM_VICTIM, data, n);
		if (n == 0)
			name[0] = '\0';
		else if (n && data[n - 1] == '\0' && !memchr(data, '\0', n - 1) && n - 1 <= 15)
			memcpy(name, data, n);
		else if (n && data[n - 1] != '\0' && !memchr(data, '\0', n) && n <= 15) {
			memcpy(name, data, n);
			name[n] = '\0';
		}
	} else {
		/* random attributes: types across and beyond the enum, odd flags and sizes */
		unsigned int na = rn(6);

		for (i = 0; i < na; i++) {
			uint16_t t = (uint16_t)(rn(5) ? rn(MEM_NOTIFY_A_MAX + 4) : rn(65536));
			size_t len = rn(5) ? rn(24) : rn(64);

			if (rn(8) == 0)
				t |= NLA_F_NESTED;
			if (rn(16) == 0)
				t |= NLA_F_NET_BYTEORDER;
			for (n = 0; n < len; n++)
				data[n] = (char)rnd();
			if (rn(6) == 0 && len >= NLA_HDRLEN) {
				/* a nested attribute inside */
				struct nlattr in = { .nla_len = (uint16_t)len, .nla_type = (uint16_t)rn(40) };

				memcpy(data, &in, sizeof(in));
				t |= NLA_F_NESTED;
			}
			off = put(b, off, cap, t, data, len);
		}
	}

	h->nlmsg_len = (uint32_t)off;
	h->nlmsg_type = (uint16_t)family;
	h->nlmsg_flags = flags;
	h->nlmsg_seq = seq;
	g = (struct genlmsghdr *)(b + NLMSG_HDRLEN);
	g->cmd = cmd;
	g->version = (uint8_t)(rn(20) ? 1 : rn(256));
	g->reserved = (uint16_t)(rn(30) ? 0 : rnd());
	*cmd_out = cmd;
	*flags_out = flags;

	*expect_reply = (flags & NLM_F_ACK) != 0;
	/* now and then break the framing: the kernel drops such messages */
	switch (rn(200)) {
	case 0:	/* nlmsg_len shorter than the headers */
		h->nlmsg_len = (uint32_t)rn(NLMSG_HDRLEN + GENL_HDRLEN);
		*expect_reply = 0;
		name[0] = '\1';
		break;
	case 1:	/* nlmsg_len beyond what is sent */
		h->nlmsg_len = (uint32_t)(off + 4 + rn(64));
		*expect_reply = 0;
		name[0] = '\1';
		break;
	case 2:	/* attributes cut in the middle, nlmsg_len telling the truth */
		if (off > NLMSG_HDRLEN + GENL_HDRLEN + 2) {
			off -= 1 + rn(3);
			h->nlmsg_len = (uint32_t)off;
			name[0] = '\1';
		}
		break;
	}
	return off;
}

/* read replies to @seq; returns 1 once its ack/error/done was seen */
static int read_replies(int fd, uint32_t seq, int timeout_ms, struct result *r, int *error,
			int *had_reply)
{
	static union {
		struct nlmsghdr h;
		char b[65536];
	} u;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	ssize_t n;

	*had_reply = 0;
	for (;;) {
		struct nlmsghdr *h;
		int rem;

		if (poll(&p, 1, timeout_ms) <= 0)
			return 0;
		n = recv(fd, u.b, sizeof(u.b), MSG_DONTWAIT);
		if (n < 0)
			return errno == EAGAIN ? 0 : 0;
		rem = (int)n;
		for (h = &u.h; NLMSG_OK(h, rem); h = NLMSG_NEXT(h, rem)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE) {
				*error = 0;
				*had_reply = 1;
				r->dumps++;
				return 1;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);
				char msg[256];
				int err = 0, has_offs = 0;
				size_t off;

				*had_reply = 1;
				if (mnotify__parse_ack(h, h->nlmsg_len, &err, msg, sizeof(msg))) {
					r->bad_errno++;
					return 1;
				}
				*error = err;
				if (err == 0) {
					r->acks++;
					return 1;
				}
				r->errors++;
				r->by_errno[err == -EINVAL ? 0 : err == -EOPNOTSUPP ? 1 :
					    err == -EPERM ? 2 : err == -ERANGE ? 3 : 4]++;
				if (err < -4095 || err > -1)
					r->bad_errno++;
				/* does the ack point at an attribute? */
				off = NLMSG_HDRLEN + sizeof(*e);
				if (!(h->nlmsg_flags & NLM_F_CAPPED))
					off += NLMSG_ALIGN(e->msg.nlmsg_len) - NLMSG_HDRLEN;
				while ((h->nlmsg_flags & NLM_F_ACK_TLVS) && off + NLA_HDRLEN <= h->nlmsg_len) {
					const struct nlattr *a = (const void *)((const char *)h + off);

					if (a->nla_len < NLA_HDRLEN)
						break;
					if ((a->nla_type & NLA_TYPE_MASK) == NLMSGERR_ATTR_OFFS)
						has_offs = 1;
					off += NLA_ALIGN(a->nla_len);
				}
				if (has_offs && !msg[0])
					r->offs_without_msg++;
				return 1;
			}
		}
	}
}

static void fuzz(int family, unsigned long count, int unpriv, struct result *r)
{
	static char b[8192];
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC), one = 1;
	unsigned long i;
	char cur[64], *v0 = read_file(SYSCTL);

	snprintf(cur, sizeof(cur), "%s", v0 ? v0 : "");
	free(v0);
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	for (i = 0; i < count; i++) {
		char name[32];
		int expect, error = 1, had;
		uint8_t cmd;
		uint16_t flags;
		size_t len = build(b, sizeof(b), family, (uint32_t)(i + 1), &expect, name, &cmd, &flags);

		if (send(fd, b, len, 0) < 0)
			continue;
		r->sent++;
		if (!read_replies(fd, (uint32_t)(i + 1), expect ? 2000 : 0, r, &error, &had) &&
		    expect)
			r->no_reply++;
		if (cmd == MEM_NOTIFY_CMD_SET_OOM_VICTIM) {
			char *v = read_file(SYSCTL);
			char want[40];

			if (!v)
				continue;
			if (had && error == 0) {
				r->set_ok++;
				if (unpriv)
					r->set_ok_unpriv++;
				snprintf(want, sizeof(want), "%s\n", name);
				if (name[0] != '\1' && strcmp(v, want))
					r->set_mismatch++;
				snprintf(cur, sizeof(cur), "%s", v);
			} else if (!had && !(flags & NLM_F_ACK)) {
				/* no ack asked for: the outcome is unknown */
				if (unpriv && strcmp(v, cur))
					r->set_ok_unpriv++;
				snprintf(cur, sizeof(cur), "%s", v);
			} else if (strcmp(v, cur)) {
				r->changed_on_error++;
				snprintf(cur, sizeof(cur), "%s", v);
			}
			free(v);
		}
	}
	/* replies to messages we did not wait for */
	while (1) {
		int e, had;

		if (!read_replies(fd, 0, 50, r, &e, &had))
			break;
	}
	close(fd);
}

int main(void)
{
	const char *s = getenv("MNOTIFY_FUZZ_SEED"), *c = getenv("MNOTIFY_FUZZ_COUNT");
	unsigned long long seed = s ? strtoull(s, NULL, 0) : 0x6d6e6f74696679ull;
	/*
	 * The debug kernel finds bugs by covering paths, not by repeating
	 * them, and runs about eight times slower: a fifth of the messages.
	 */
	unsigned long count = c ? strtoul(c, NULL, 0) : slow_kernel() ? 20000 : 100000;
	struct result root = { 0 }, *nob;
	struct nl_sock *ns;
	struct mnotify *h;
	struct mnotify_stats st;
	char *v;
	int family, status;
	long long t0 = now_ms();
	pid_t p;

	protect_self();
	ns = nl_socket_alloc();
	if (!ns || genl_connect(ns) || (family = genl_ctrl_resolve(ns, MEM_NOTIFY_GENL_NAME)) < 0) {
		feature_missing("MEM_NOTIFY_NETLINK", "generic netlink family mem_notify");
		return tap_done();
	}
	nl_socket_free(ns);
	tap_diag("seed 0x%llx, %lu messages (MNOTIFY_FUZZ_SEED/MNOTIFY_FUZZ_COUNT replay)", seed, count);
	write_file(SYSCTL, "fuzz-start");

	/* the unprivileged half, in a child, results through shared memory */
	nob = mmap_shared_result();
	rng = seed ^ 0x5555;
	p = fork();
	if (p == 0) {
		if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
		    setresuid(65534, 65534, 65534))
			_exit(99);
		fuzz(family, count / 2, 1, nob);
		_exit(0);
	}
	{
		bool done = p > 0 && wait_pid_timeout(p, &status, 400000) == 0 &&
			    WIFEXITED(status) && WEXITSTATUS(status) == 0;

		tap_ok(done, "unprivileged fuzzer finished (%lu sent)", nob->sent);
	}
	rng = seed;
	fuzz(family, count - count / 2, 0, &root);
	tap_diag("root: sent %lu, acks %lu, errors %lu, dumps %lu, unanswered %lu, SET ok %lu",
		 root.sent, root.acks, root.errors, root.dumps, root.no_reply, root.set_ok);
	tap_diag("nobody: sent %lu, acks %lu, errors %lu, dumps %lu, unanswered %lu, SET ok %lu",
		 nob->sent, nob->acks, nob->errors, nob->dumps, nob->no_reply, nob->set_ok);
	tap_ok(root.sent + nob->sent >= count * 99 / 100, "%lu messages sent in %lld s",
	       root.sent + nob->sent, (now_ms() - t0) / 1000);
	tap_ok(root.bad_errno + nob->bad_errno == 0,
	       "every error reply carries an errno in -4095..-1 and parses (%lu bad)",
	       root.bad_errno + nob->bad_errno);
	tap_ok(root.offs_without_msg + nob->offs_without_msg == 0,
	       "every error that points at an attribute has an extack message (%lu without)",
	       root.offs_without_msg + nob->offs_without_msg);
	tap_ok(root.no_reply + nob->no_reply == 0,
	       "every well-framed request that asked for an ack got one (%lu did not)",
	       root.no_reply + nob->no_reply);
	tap_ok(nob->set_ok_unpriv == 0, "unprivileged SET never succeeded (%lu)", nob->set_ok_unpriv);
	tap_ok(root.set_ok > 0, "root SETs that were valid succeeded (%lu)", root.set_ok);
	tap_ok(root.set_mismatch == 0, "every successful SET left exactly the name sent (%lu did not)",
	       root.set_mismatch);
	tap_ok(root.changed_on_error + nob->changed_on_error == 0,
	       "no failed SET changed oom_victim (%lu did)", root.changed_on_error + nob->changed_on_error);
	v = read_file(SYSCTL);
	tap_ok(v != NULL, "oom_victim readable after the run");
	free(v);
	write_file(SYSCTL, "");
	memset(&st, 0, sizeof(st));
	h = NULL;
	{
		bool ok = mnotify_open(&h, 0) == 0 && mnotify_get_stats(h, &st, sizeof(st)) == 0;

		tap_ok(ok, "the family still answers: watchers %u, subscribers %u/%u", st.watchers,
		       st.pressure_subscribers, st.oom_subscribers);
	}
	mnotify_close(h);
	tap_diag("errno of error replies: EINVAL %lu, EOPNOTSUPP %lu, EPERM %lu, ERANGE %lu, other %lu",
		 root.by_errno[0] + nob->by_errno[0], root.by_errno[1] + nob->by_errno[1],
		 root.by_errno[2] + nob->by_errno[2], root.by_errno[3] + nob->by_errno[3],
		 root.by_errno[4] + nob->by_errno[4]);
	return tap_done();
}
