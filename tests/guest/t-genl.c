// SPDX-License-Identifier: GPL-2.0
/* Generic netlink works in the guest through libnl (static). */
#include "guestlib.h"

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

int main(void)
{
	struct nl_sock *sk = nl_socket_alloc();
	int id, err;

	if (!sk)
		tap_bail("nl_socket_alloc");
	err = genl_connect(sk);
	if (!tap_ok(err == 0, "genl_connect: %s", nl_geterror(err)))
		return tap_done();
	id = genl_ctrl_resolve(sk, "nlctrl");
	tap_ok(id == GENL_ID_CTRL, "nlctrl resolves to GENL_ID_CTRL (%d)", id);
	id = genl_ctrl_resolve(sk, "mnotify_no_such_family");
	tap_ok(id < 0, "an unknown family does not resolve (%s)", nl_geterror(id));
	nl_socket_free(sk);
	return tap_done();
}
