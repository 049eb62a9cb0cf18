/*
 * TAP devices for host-side NIOs: the dataplane holds the device's file
 * descriptor and exchanges raw Ethernet frames with it, the role ubridge's
 * TAP NIO plays for GNS3.
 *
 * Kernel facts this relies on:
 *  - IFF_TAP | IFF_NO_PI: each read() returns exactly one Ethernet frame and
 *    each write() sends one, with no 4-byte packet-information header.
 *  - TUNSETIFF on a name that does not exist creates a non-persistent device
 *    that the kernel deletes when its last descriptor closes (removing the NIO,
 *    or the process dying, even by kill -9). On an existing persistent TAP it
 *    attaches, and closing leaves the device to whoever made it.
 *  - The descriptor is non-blocking: reads end with EAGAIN when the queue is
 *    empty, writes fail with EAGAIN when the device's queue (txqueuelen) is full.
 *  - Reads are at most MTU + 14 (+ 4 per VLAN tag) bytes; DP_SLOT buffers hold
 *    any MTU. A written frame longer than the MTU allows is dropped by the stack.
 */
#include "dp.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Sets IFF_UP on the interface (in this network namespace). Returns 0 or an errno. */
static int bring_up(const char *name) {
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  if (s < 0) return errno;
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
  int err = 0;
  if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0) err = errno;
  else if (!(ifr.ifr_flags & IFF_UP)) {
    ifr.ifr_flags |= IFF_UP;
    if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0) err = errno;
  }
  close(s);
  return err;
}

int dp_tap_open(const char *name, int *fd_out) {
  if (!name[0] || strlen(name) >= IFNAMSIZ) return EINVAL;
  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return errno;
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
  strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
  if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
    int err = errno;
    close(fd);
    return err;
  }
  int err = bring_up(name);
  if (err) {
    close(fd);
    return err;
  }
  *fd_out = fd;
  return 0;
}
