/*
 * LD_PRELOAD shim for the FRR test image (listed in its /etc/ld.so.preload).
 *
 * FRR 8.4's daemons (zebra, ospfd, bgpd, isisd...) ask libcap for CAP_SYS_ADMIN at start
 * (privs_init: "initial cap_set_proc failed", FRR issue 8681) and exit when the container lacks it.
 * They only use it to enter network namespaces (netns VRFs), which emuctl's labs do not use.
 * This wraps cap_set_proc: CAP_SYS_ADMIN is cleared from every flag of the requested set, then
 * libcap's own cap_set_proc runs. The daemons then run with NET_ADMIN and NET_RAW only.
 *
 * Self-contained (no libcap headers on the build host): libcap's ABI values are spelled out.
 */
#define _GNU_SOURCE
#include <dlfcn.h>

typedef void *cap_t;
typedef int cap_value_t;

enum { CAP_EFFECTIVE = 0, CAP_PERMITTED = 1, CAP_INHERITABLE = 2 };
enum { CAP_CLEAR = 0 };
enum { CAP_SYS_ADMIN = 21 };

int cap_set_proc(cap_t caps)
{
	static int (*real_set_proc)(cap_t);
	static int (*set_flag)(cap_t, int, int, const cap_value_t *, int);
	const cap_value_t sys_admin = CAP_SYS_ADMIN;

	if (!real_set_proc)
		real_set_proc = (int (*)(cap_t))dlsym(RTLD_NEXT, "cap_set_proc");
	if (!set_flag)
		set_flag = (int (*)(cap_t, int, int, const cap_value_t *, int))dlsym(RTLD_DEFAULT, "cap_set_flag");
	if (!real_set_proc)
		return -1;
	if (set_flag && caps) {
		set_flag(caps, CAP_EFFECTIVE, 1, &sys_admin, CAP_CLEAR);
		set_flag(caps, CAP_PERMITTED, 1, &sys_admin, CAP_CLEAR);
		set_flag(caps, CAP_INHERITABLE, 1, &sys_admin, CAP_CLEAR);
	}
	return real_set_proc(caps);
}
