/*
 * Host-side NIOs, the role ubridge plays for GNS3: a TAP device the dataplane
 * holds the file descriptor of, or an AF_PACKET socket on an existing
 * interface. Either exchanges raw Ethernet frames.
 *
 * TAP: kernel facts this relies on:
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
 *  - With IFF_VNET_HDR every read and write carries a virtio_net_hdr (10 bytes,
 *    TUNSETVNETHDRSZ's default) before the frame, and TUNSETOFFLOAD lets the
 *    stack hand over TCP segments of up to 64 KB with partial checksums (see
 *    offload.c), as it does to a virtio NIC. The flag belongs to the descriptor:
 *    an existing TAP attached this way gets offloads too.
 */
#include "dp.h"

#include <errno.h>
#include <fcntl.h>
#include <arpa/inet.h>
#include <linux/if_packet.h>
#include <linux/if_ether.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

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

static int dp_tap_open(const char *name, int offload, int *fd_out) {
  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return errno;
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  ifr.ifr_flags = IFF_TAP | IFF_NO_PI | (offload ? IFF_VNET_HDR : 0);
  strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
  if (ioctl(fd, TUNSETIFF, &ifr) < 0 || (offload && ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6) < 0)) {
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

/*
 * AF_PACKET on an existing interface: a raw socket bound to its ifindex with
 * ETH_P_ALL sees every frame the interface receives (and, without
 * PACKET_IGNORE_OUTGOING, Linux >= 4.20, every frame it sends, ours included:
 * a loop; so that option is required). send() on the bound socket transmits on
 * the interface, so the socket takes the same recvmmsg/sendmmsg path as a
 * UDP tunnel. Frames longer than the interface's MTU are refused (EMSGSIZE,
 * counted); with VLAN offload on, the kernel strips received tags.
 */
static int dp_packet_open(const char *name, int *fd_out) {
  unsigned ifindex = if_nametoindex(name);
  if (!ifindex) return errno;
  int fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, htons(ETH_P_ALL));
  if (fd < 0) return errno;
  int one = 1;
  struct sockaddr_ll sll;
  memset(&sll, 0, sizeof sll);
  sll.sll_family = AF_PACKET;
  sll.sll_protocol = htons(ETH_P_ALL);
  sll.sll_ifindex = (int)ifindex;
  if (setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof one) < 0 || bind(fd, (struct sockaddr *)&sll, sizeof sll) < 0) {
    int err = errno;
    close(fd);
    return err;
  }
  int size = RECV_BUFFER;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size); /* best effort: the kernel caps it */
  *fd_out = fd;
  return 0;
}

int dp_host_open(int kind, const char *name, int offload, int *fd) {
  if (!name[0] || strlen(name) >= IFNAMSIZ) return EINVAL;
  return kind == DP_NIO_TAP ? dp_tap_open(name, offload, fd) : dp_packet_open(name, fd);
}
