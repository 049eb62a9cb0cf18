/*
 * The process's own UDP tunnels must never re-enter the dataplane through a host interface: a cloud
 * port on the loopback (or on the interface a remote compute's tunnels cross) captures the tunnel
 * datagrams of the very link it feeds, and each, sent on into the lab, comes back as a new datagram
 * (issue 26: 525 MB of pcap in 2 s). A frame read from a host NIO that is a UDP datagram from or to
 * a port a tunnel of this process is bound to is dropped. src/daemon/dataplane/tunnel-guard.ts is the
 * same test for the TypeScript engine.
 *
 * The ports are counted process-wide (a tunnel and a host NIO may live on different engine threads),
 * with atomics: engine threads read, control calls write.
 */
#include "dp.h"

#include <stdint.h>

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define PROTO_UDP 17
/* IPv6 extension headers walked to reach the UDP header. */
#define HOP_BY_HOP 0
#define ROUTING 43
#define FRAGMENT 44
#define AH 51
#define DEST_OPTS 60
#define MAX_TAGS 2
#define MAX_EXTENSIONS 8

static uint16_t tunnel_ports[65536];

void dp_tunnel_port_add(uint16_t port) {
  __atomic_add_fetch(&tunnel_ports[port], 1, __ATOMIC_RELAXED);
}

void dp_tunnel_port_remove(uint16_t port) {
  uint16_t n = __atomic_load_n(&tunnel_ports[port], __ATOMIC_RELAXED);
  while (n && !__atomic_compare_exchange_n(&tunnel_ports[port], &n, (uint16_t)(n - 1), 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
}

static inline uint32_t rd16(const uint8_t *b) { return ((uint32_t)b[0] << 8) | b[1]; }

static inline int is_tag(uint32_t type) { return type == 0x8100 || type == 0x88a8 || type == 0x9100 || type == 0x9200; }

/* Offset of the UDP header (behind up to two VLAN tags, IPv4 or IPv6), or -1 when the frame is no first fragment of a UDP datagram. */
static long udp_offset(const uint8_t *f, uint32_t len) {
  if (len < DP_ETH_HEADER) return -1;
  uint32_t o = 12, type = rd16(f + o);
  for (int tags = 0; is_tag(type) && tags < MAX_TAGS; tags++) {
    o += 4;
    if (len < o + 2) return -1;
    type = rd16(f + o);
  }
  o += 2;
  if (type == ETHERTYPE_IPV4) {
    if (len < o + 20 || f[o] >> 4 != 4 || f[o + 9] != PROTO_UDP) return -1;
    if (rd16(f + o + 6) & 0x1fff) return -1; /* a later fragment carries no UDP header */
    uint32_t udp = o + (uint32_t)(f[o] & 0x0f) * 4;
    return len >= udp + 4 ? (long)udp : -1;
  }
  if (type != ETHERTYPE_IPV6 || len < o + 40 || f[o] >> 4 != 6) return -1;
  uint32_t next = f[o + 6];
  o += 40;
  for (int n = 0; n < MAX_EXTENSIONS && len >= o + 8; n++) {
    if (next == PROTO_UDP) return len >= o + 4 ? (long)o : -1;
    if (next == FRAGMENT) {
      if (rd16(f + o + 2) & 0xfff8) return -1;
      next = f[o];
      o += 8;
    } else if (next == HOP_BY_HOP || next == ROUTING || next == DEST_OPTS) {
      next = f[o];
      o += ((uint32_t)f[o + 1] + 1) * 8;
    } else if (next == AH) {
      next = f[o];
      o += ((uint32_t)f[o + 1] + 2) * 4;
    } else {
      return -1;
    }
  }
  return next == PROTO_UDP && len >= o + 4 ? (long)o : -1;
}

int dp_carries_tunnel(const uint8_t *f, uint32_t len) {
  long udp = udp_offset(f, len);
  if (udp < 0) return 0;
  return __atomic_load_n(&tunnel_ports[rd16(f + udp)], __ATOMIC_RELAXED) || __atomic_load_n(&tunnel_ports[rd16(f + udp + 2)], __ATOMIC_RELAXED);
}
