/*
 * Offloaded frames (see dp.h): counting them as the wire frames they stand for, cutting them into
 * those frames where a port needs wire frames, and pairing UDP tunnels whose two ends are NIOs of
 * this process, so such frames cross them whole.
 *
 * Kernel facts this relies on (virtio_net_hdr, as a TAP with IFF_VNET_HDR and TUNSETOFFLOAD
 * TUN_F_CSUM | TUN_F_TSO4 | TUN_F_TSO6 reads it, in host byte order):
 *  - gso_type TCPV4 or TCPV6 (maybe with the ECN bit): the frame is one TCP segment of up to 64 KB
 *    whose payload goes out in gso_size pieces; its TCP checksum holds only the pseudo-header sum.
 *  - flags NEEDS_CSUM without GSO: the checksum at csum_start + csum_offset holds the pseudo-header
 *    sum; the sum of everything from csum_start, folded and inverted, completes it.
 *  - Written back with the same header, the kernel accepts both (it segments or checksums as needed).
 */
#include "dp.h"

#include <linux/virtio_net.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>

_Static_assert(sizeof(dp_vnet) == sizeof(struct virtio_net_hdr) && offsetof(dp_vnet, csum_offset) == offsetof(struct virtio_net_hdr, csum_offset), "dp_vnet is virtio_net_hdr");

#define ETH_IPV4 0x0800
#define ETH_IPV6 0x86dd
#define TCP_FIN 0x01
#define TCP_PSH 0x08
#define TCP_CWR 0x80

static const uint8_t PEER_MAGIC[4] = {0xe7, 'o', 'f', 1};

static inline uint32_t rd16(const uint8_t *b) { return ((uint32_t)b[0] << 8) | b[1]; }
static inline uint32_t rd32(const uint8_t *b) { return (rd16(b) << 16) | rd16(b + 2); }
static inline void wr16(uint8_t *b, uint32_t v) {
  b[0] = (uint8_t)(v >> 8);
  b[1] = (uint8_t)v;
}
static inline void wr32(uint8_t *b, uint32_t v) {
  wr16(b, v >> 16);
  wr16(b + 2, v);
}

static uint64_t sum_bytes(const uint8_t *b, uint32_t len, uint64_t sum) {
  uint32_t i = 0;
  for (; i + 1 < len; i += 2) sum += rd16(b + i);
  if (i < len) sum += (uint32_t)b[i] << 8;
  return sum;
}

static uint16_t fold(uint64_t sum) {
  while (sum >> 16) sum = (sum & 0xffff) + (sum >> 16);
  return (uint16_t)~sum;
}

const dp_vnet *dp_vnet_needed(const dp_vnet *h) {
  return h->gso_type != VIRTIO_NET_HDR_GSO_NONE || (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) ? h : NULL;
}

/* Where a TCP GSO frame's headers are, and how many wire frames it makes. */
typedef struct {
  uint32_t l3, l4, headers, mss, segments;
  int v6;
} tcp_gso;

static int parse_tcp_gso(const uint8_t *f, uint32_t len, const dp_vnet *h, tcp_gso *g) {
  uint32_t type = h->gso_type & ~VIRTIO_NET_HDR_GSO_ECN;
  if (type != VIRTIO_NET_HDR_GSO_TCPV4 && type != VIRTIO_NET_HDR_GSO_TCPV6) return -1;
  if (len < DP_ETH_HEADER || !h->gso_size) return -1;
  uint32_t off = 12, ethertype = rd16(f + 12);
  while (ethertype == 0x8100 || ethertype == 0x88a8) {
    off += 4;
    if (off + 2 > len) return -1;
    ethertype = rd16(f + off);
  }
  g->l3 = off + 2;
  g->v6 = type == VIRTIO_NET_HDR_GSO_TCPV6;
  if (!g->v6) {
    if (ethertype != ETH_IPV4 || g->l3 + 20 > len || f[g->l3 + 9] != IPPROTO_TCP) return -1;
    uint32_t ihl = (f[g->l3] & 0x0f) * 4u;
    if (ihl < 20) return -1;
    g->l4 = g->l3 + ihl;
  } else {
    if (ethertype != ETH_IPV6 || g->l3 + 40 > len) return -1;
    /* Past extension headers, the TCP header is where the checksum starts. */
    g->l4 = (h->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) && h->csum_start > g->l3 + 40 ? h->csum_start : g->l3 + 40;
    if (g->l4 == g->l3 + 40 && f[g->l3 + 6] != IPPROTO_TCP) return -1;
  }
  if (g->l4 + 20 > len) return -1;
  uint32_t thl = (f[g->l4 + 12] >> 4) * 4u;
  if (thl < 20 || g->l4 + thl > len) return -1;
  g->headers = g->l4 + thl;
  g->mss = h->gso_size;
  uint32_t payload = len - g->headers;
  g->segments = payload ? (payload + g->mss - 1) / g->mss : 1;
  return 0;
}

void dp_wire_size(const uint8_t *f, uint32_t len, const dp_vnet *h, uint64_t *frames, uint64_t *bytes) {
  tcp_gso g;
  if (h->gso_type == VIRTIO_NET_HDR_GSO_NONE) {
    *frames = 1;
    *bytes = len;
  } else if (parse_tcp_gso(f, len, h, &g) == 0) {
    *frames = g.segments;
    *bytes = len + (uint64_t)(g.segments - 1) * g.headers;
  } else {
    *frames = *bytes = 0;
  }
}

/* Room for one cut frame, sending what is queued (and so freeing every earlier cut) when it is short. */
static uint8_t *cut_room(dp_engine *e, uint32_t len) {
  if (!e->cuts) return NULL;
  if (e->cuts_used + len > DP_CUTS_SIZE) {
    dp_flush(e);
    e->cuts_used = 0;
  }
  if (len > DP_CUTS_SIZE) return NULL;
  uint8_t *p = e->cuts + e->cuts_used;
  e->cuts_used += (len + 7u) & ~7u;
  return p;
}

/* A copy with the partial checksum completed. */
static int complete_checksum(dp_engine *e, const uint8_t *f, uint32_t len, const dp_vnet *h, dp_frame_fn fn, void *ctx) {
  uint32_t start = h->csum_start, at = start + h->csum_offset;
  if (start >= len || at + 2 > len) return -1;
  uint8_t *c = cut_room(e, len);
  if (!c) return -1;
  memcpy(c, f, len);
  /* A sum of zero is sent as 0xffff: UDP reads 0 as "no checksum" (TCP takes either). */
  uint16_t sum = fold(sum_bytes(c + start, len - start, 0));
  wr16(c + at, sum ? sum : 0xffff);
  fn(e, ctx, c, len);
  return 0;
}

static uint64_t pseudo_header_sum(const uint8_t *f, const tcp_gso *g, uint32_t tcp_len) {
  uint64_t sum = g->v6 ? sum_bytes(f + g->l3 + 8, 32, 0) : sum_bytes(f + g->l3 + 12, 8, 0);
  return sum + IPPROTO_TCP + tcp_len;
}

static int cut_tcp(dp_engine *e, const uint8_t *f, uint32_t len, const dp_vnet *h, dp_frame_fn fn, void *ctx) {
  tcp_gso g;
  if (parse_tcp_gso(f, len, h, &g)) return -1;
  uint32_t payload = len - g.headers, seq = rd32(f + g.l4 + 4), id = rd16(f + g.l3 + 4);
  uint8_t flags = f[g.l4 + 13];
  for (uint32_t i = 0; i < g.segments; i++) {
    uint32_t from = i * g.mss, size = payload - from < g.mss ? payload - from : g.mss;
    uint32_t slen = g.headers + size;
    uint8_t *s = cut_room(e, slen);
    if (!s) return -1;
    memcpy(s, f, g.headers);
    memcpy(s + g.headers, f + g.headers + from, size);
    if (g.v6) {
      wr16(s + g.l3 + 4, slen - g.l3 - 40);
    } else {
      uint32_t ihl = g.l4 - g.l3;
      wr16(s + g.l3 + 2, slen - g.l3);
      wr16(s + g.l3 + 4, (id + i) & 0xffff);
      wr16(s + g.l3 + 10, 0);
      wr16(s + g.l3 + 10, fold(sum_bytes(s + g.l3, ihl, 0)));
    }
    wr32(s + g.l4 + 4, seq + from);
    uint8_t fl = flags;
    if (i + 1 < g.segments) fl &= (uint8_t)~(TCP_FIN | TCP_PSH);
    if (i > 0) fl &= (uint8_t)~TCP_CWR;
    s[g.l4 + 13] = fl;
    uint32_t tcp_len = slen - g.l4;
    wr16(s + g.l4 + 16, 0);
    wr16(s + g.l4 + 16, fold(sum_bytes(s + g.l4, tcp_len, pseudo_header_sum(s, &g, tcp_len))));
    fn(e, ctx, s, slen);
  }
  return 0;
}

int dp_cut(dp_engine *e, const uint8_t *f, uint32_t len, const dp_vnet *h, dp_frame_fn fn, void *ctx) {
  if (h->gso_type == VIRTIO_NET_HDR_GSO_NONE) return complete_checksum(e, f, len, h, fn, ctx);
  return cut_tcp(e, f, len, h, fn, ctx);
}

int dp_nio_takes_gso(dp_nio *n, uint32_t len) {
  if (n->kind == DP_NIO_TAP) return n->vnet;
  return __atomic_load_n(&n->peer_offload, __ATOMIC_RELAXED) && len <= DP_PEER_MAX_FRAME;
}

void dp_peer_wrap(uint8_t prefix[DP_PEER_PREFIX], const dp_vnet *h) {
  memcpy(prefix, PEER_MAGIC, sizeof PEER_MAGIC);
  if (h) memcpy(prefix + 4, h, sizeof *h);
  else memset(prefix + 4, 0, sizeof *h);
  prefix[14] = prefix[15] = 0;
}

int dp_peer_unwrap(uint8_t *b, uint32_t len, const dp_vnet **h, uint8_t **f, uint32_t *flen) {
  if (len < DP_PEER_PREFIX || memcmp(b, PEER_MAGIC, sizeof PEER_MAGIC)) return 0;
  *h = dp_vnet_needed((const dp_vnet *)(b + 4));
  *f = b + DP_PEER_PREFIX;
  *flen = len - DP_PEER_PREFIX;
  return 1;
}

/* ---- offload peers: UDP tunnels of this process that face each other ---- */

static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static dp_nio *registry;

static int same_address(const struct sockaddr_storage *a, const struct sockaddr_storage *b) {
  if (a->ss_family != b->ss_family) return 0;
  if (a->ss_family == AF_INET) {
    const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
    return x->sin_port == y->sin_port && x->sin_addr.s_addr == y->sin_addr.s_addr;
  }
  const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
  return x->sin6_port == y->sin6_port && !memcmp(&x->sin6_addr, &y->sin6_addr, sizeof x->sin6_addr);
}

void dp_offload_register(dp_nio *n) {
  pthread_mutex_lock(&registry_lock);
  for (dp_nio *o = registry; o; o = o->registered_next) {
    if (!o->peer && same_address(&o->local, &n->remote) && same_address(&o->remote, &n->local)) {
      o->peer = n;
      n->peer = o;
      __atomic_store_n(&o->peer_offload, 1, __ATOMIC_RELAXED);
      __atomic_store_n(&n->peer_offload, 1, __ATOMIC_RELAXED);
      break;
    }
  }
  n->registered_next = registry;
  registry = n;
  pthread_mutex_unlock(&registry_lock);
}

void dp_offload_unregister(dp_nio *n) {
  pthread_mutex_lock(&registry_lock);
  for (dp_nio **at = &registry; *at; at = &(*at)->registered_next) {
    if (*at == n) {
      *at = n->registered_next;
      break;
    }
  }
  if (n->peer) {
    __atomic_store_n(&n->peer->peer_offload, 0, __ATOMIC_RELAXED);
    n->peer->peer = NULL;
    n->peer = NULL;
  }
  pthread_mutex_unlock(&registry_lock);
}
