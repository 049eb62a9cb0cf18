/*
 * emuctl native dataplane: shared definitions.
 *
 * Engine threads own UDP sockets (and host interfaces, host-nio.c) and move frames
 * with recvmmsg/sendmmsg in batches. Each node (switch or hub) lives on one engine thread; the thread
 * holds its engine's mutex while it handles a batch, and every control call
 * from JavaScript takes the same mutex, so the frame path needs no other
 * synchronisation. Frames are never handed to JavaScript.
 */
#ifndef EMUCTL_DP_H
#define EMUCTL_DP_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* recvmmsg, sendmmsg */
#endif

#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DP_BATCH 64
/* Receive buffer asked of the kernel for a NIO socket (best effort: the kernel caps it). */
#define RECV_BUFFER (4 * 1024 * 1024)
/* A receive slot: the largest UDP payload, or a TAP's largest offloaded frame and its virtio header. */
#define DP_SLOT (65536 + 128)
#define DP_ETH_HEADER 14
#define DP_TPID_8021Q 0x8100

enum { DP_SWITCH = 0, DP_HUB = 1 };
enum { DP_ACCESS = 0, DP_DOT1Q = 1, DP_QINQ = 2 };

typedef struct dp_counters {
  uint64_t frames_in, bytes_in, frames_out, bytes_out, drops, errors;
} dp_counters;

/* A frame copied out of the receive batch because a timed filter holds it. */
typedef struct dp_held {
  struct dp_held *next;
  uint64_t due, seq;
  uint32_t len;
  uint8_t data[];
} dp_held;

/* A port's filters (see filters.c); NULL on the port means pass-through. */
typedef struct dp_filters dp_filters;
typedef struct dp_pcap dp_pcap;
struct dp_node;
struct dp_engine;

/* How a NIO's descriptor moves frames: a socket, recvmmsg/sendmmsg (a connected UDP tunnel, an AF_PACKET socket), or a TAP device, one read/write per frame. */
enum { DP_NIO_SOCKET = 0, DP_NIO_TAP = 1 };
/* Host-side NIO kinds (host-nio.c): a TAP device, or an AF_PACKET socket on an existing interface. */
enum { DP_HOST_TAP = DP_NIO_TAP, DP_HOST_ETHERNET = 2 };

/*
 * Offloads (offload.c): a TAP opened with IFF_VNET_HDR reads and writes each frame behind a virtio
 * header, so TCP moves as 64 KB segments (GSO) with checksums left to the receiver. Such a frame
 * travels as one only to a port that takes it: another offloading TAP, or a UDP tunnel whose far
 * end is a NIO of this same process (an offload peer); to any other port it is cut into wire-sized
 * frames first, with complete checksums.
 */
/* struct virtio_net_hdr (linux/virtio_net.h, which C++ cannot include), in host byte order. */
typedef struct dp_vnet {
  uint8_t flags, gso_type;
  uint16_t hdr_len, gso_size, csum_start, csum_offset;
} dp_vnet;
/* A datagram between offload peers: magic (4), virtio header (10), padding (2), then the frame. */
#define DP_PEER_PREFIX 16
#define DP_TAP_VNET 10
/* Largest frame an offload peer datagram carries whole. */
#define DP_PEER_MAX_FRAME (65507 - DP_PEER_PREFIX)
/* Room for frames cut from offloaded ones; flushed and reused when full. */
#define DP_CUTS_SIZE (1024 * 1024)

typedef struct dp_nio {
  int fd;
  int kind;
  int vnet;         /* a TAP opened with IFF_VNET_HDR */
  int peer_offload; /* a UDP tunnel to an offload peer (read and written with atomics: offload.c pairs peers) */
  int host;         /* a host-side NIO (TAP, AF_PACKET): frames of this process's tunnels read from it are dropped */
  uint16_t tunnel_port; /* a UDP tunnel's bound port, counted by tunnel-guard.c; 0 for a host NIO */
  struct dp_nio *peer, *registered_next; /* offload.c's registry, under its own lock */
  struct sockaddr_storage local, remote;
  uint32_t slot, gen;
  struct dp_port *port;
  uint32_t ntx;
  int pending;
  struct dp_nio *next_pending;
  struct mmsghdr tx[DP_BATCH];
  struct iovec iov[DP_BATCH][2];
  uint8_t prefix[DP_BATCH][DP_PEER_PREFIX];
} dp_nio;

typedef struct dp_port {
  int32_t number;
  uint8_t mode;
  uint16_t vlan, tpid;
  int suspended;
  int timed; /* listed in the engine's timed ports */
  dp_nio *nio;
  dp_filters *filters;
  dp_pcap *capture;
  dp_counters c;
  struct dp_node *node;
} dp_port;

typedef struct dp_mac_entry {
  uint64_t key; /* vlan << 48 | mac; 0 = empty (VLAN 0 is never switched) */
  dp_port *port;
  uint64_t seen;
} dp_mac_entry;

typedef struct dp_mactable {
  dp_mac_entry *slots;
  uint32_t cap, size;
  uint64_t ageing_ns; /* 0 = never */
} dp_mactable;

typedef struct dp_node {
  int kind;
  int suspended;
  uint32_t handle;
  struct dp_engine *eng;
  dp_port **ports; /* sorted by number */
  uint32_t nports;
  dp_port **active; /* ports with a NIO, in port order: what flooding iterates */
  uint32_t nactive;
  dp_mactable macs;
  struct dp_node *next;
} dp_node;

typedef struct dp_engine {
  pthread_t thread;
  pthread_mutex_t lock;
  int epfd, wakefd, timerfd;
  volatile int stop;
  int started;
  uint32_t nnodes;
  dp_node *nodes;
  /* NIO slots: epoll carries slot and generation, so an event for a closed socket is ignored. */
  dp_nio **nios;
  uint32_t *gens;
  uint32_t nio_cap;
  /* receive batch */
  uint8_t *rxbuf;
  struct mmsghdr rx[DP_BATCH];
  struct iovec rxiov[DP_BATCH];
  /* per-iteration scratch: re-tagged frames, NIOs with frames to send, held frames to free after sending */
  uint8_t *arena;
  uint32_t arena_used;
  /* frames cut from an offloaded one (offload.c); reused only after everything queued is sent */
  uint8_t *cuts;
  uint32_t cuts_used;
  dp_nio *pending;
  dp_held *to_free;
  /* ports whose filters hold frames or whose capture has a pending batch */
  dp_port **timed;
  uint32_t ntimed, timed_cap;
  uint64_t armed;
  uint64_t next_sweep;
  uint64_t rng;
} dp_engine;

uint64_t dp_now(void);
double dp_random(dp_engine *e);

/* engine.c */
int dp_engine_start(dp_engine *e);
void dp_engine_stop(dp_engine *e);
void dp_engine_wake(dp_engine *e);
void dp_timed_add(dp_engine *e, dp_port *p);
void dp_timed_remove(dp_engine *e, dp_port *p);
int dp_nio_open(dp_engine *e, dp_port *p, int family, const char *bind_addr, int lport, const char *raddr, int rport, int *stage);
int dp_nio_open_host(dp_engine *e, dp_port *p, int kind, const char *ifname, int offload);
void dp_nio_close(dp_engine *e, dp_port *p);
/* Queues a frame; `gso` (NULL for a plain frame) only when dp_nio_takes_gso said yes. */
void dp_nio_queue(dp_engine *e, dp_nio *n, const uint8_t *f, uint32_t len, const dp_vnet *gso);
/* Sends everything queued on the engine's NIOs. */
void dp_flush(dp_engine *e);
uint8_t *dp_arena_alloc(dp_engine *e, uint32_t len);
void dp_arena_reserve(dp_engine *e, uint32_t len);

/* forward.c */
/* `gso`: the frame's virtio header when it is offloaded (a GSO segment or a partial checksum), else NULL. */
void dp_ingress(dp_engine *e, dp_port *p, uint8_t *f, uint32_t len, const dp_vnet *gso, uint64_t now);
void dp_after_filters(dp_engine *e, dp_port *p, uint8_t *f, uint32_t len, uint64_t now);
void dp_node_set_active(dp_node *n);

/* mactable.c */
int dp_mac_init(dp_mactable *t, uint64_t ageing_ns);
void dp_mac_free(dp_mactable *t);
void dp_mac_learn(dp_mactable *t, uint64_t key, dp_port *p, uint64_t now);
dp_port *dp_mac_lookup(dp_mactable *t, uint64_t key, uint64_t now);
void dp_mac_flush_port(dp_mactable *t, dp_port *p);
void dp_mac_flush_all(dp_mactable *t);
void dp_mac_sweep(dp_mactable *t, uint64_t now);

/* filters.c */
typedef struct dp_filter_spec {
  double frequency_drop, packet_loss, delay_ms, jitter_ms, corrupt, rate_kbps, duplicate;
} dp_filter_spec;
dp_filters *dp_filters_new(const dp_filter_spec *s, uint32_t nprog, const uint32_t *const *progs, const uint32_t *lens);
void dp_filters_free(dp_filters *f, dp_counters *c);
int dp_filters_timed(const dp_filters *f);
void dp_filters_push(dp_engine *e, dp_port *p, uint8_t *frame, uint32_t len, uint64_t now);
/* Releases what is due; returns the next deadline (UINT64_MAX if nothing is held). */
uint64_t dp_filters_run(dp_engine *e, dp_port *p, uint64_t now);

/* bpf.c */
uint32_t dp_bpf_run(const uint32_t *prog, uint32_t ninsns, const uint8_t *b, uint32_t len);

/* host-nio.c: DP_HOST_TAP opens (creating if missing) the TAP device `name` and brings it up, with IFF_VNET_HDR and TCP offloads when `offload`; DP_HOST_ETHERNET opens an AF_PACKET socket on the existing interface `name`. Non-blocking. Returns 0 or an errno. */
int dp_host_open(int kind, const char *name, int offload, int *fd);

/* tunnel-guard.c: the ports this process's UDP tunnels are bound to, and the test of a host NIO's frames against them. */
void dp_tunnel_port_add(uint16_t port);
void dp_tunnel_port_remove(uint16_t port);
/* Whether the frame is a UDP datagram (IPv4 or IPv6, behind up to two VLAN tags) from or to one of those ports. */
int dp_carries_tunnel(const uint8_t *f, uint32_t len);

/* offload.c */
typedef void (*dp_frame_fn)(dp_engine *e, void *ctx, uint8_t *f, uint32_t len);
/* Ignores a header that asks nothing of the receiver (no GSO, no partial checksum): NULL then. */
const dp_vnet *dp_vnet_needed(const dp_vnet *h);
/* How many frames and bytes an offloaded frame is on a wire; 0 frames when it is malformed. */
void dp_wire_size(const uint8_t *f, uint32_t len, const dp_vnet *h, uint64_t *frames, uint64_t *bytes);
/* Cuts an offloaded frame into wire frames with complete checksums and hands each to fn. Returns 0, or -1 when it is malformed (nothing handed on). */
int dp_cut(dp_engine *e, const uint8_t *f, uint32_t len, const dp_vnet *h, dp_frame_fn fn, void *ctx);
/* Whether the NIO takes this offloaded frame whole. */
int dp_nio_takes_gso(dp_nio *n, uint32_t len);
/* Pairs a UDP tunnel with the NIO of this process at its far end, when there is one; unpair on close. */
void dp_offload_register(dp_nio *n);
void dp_offload_unregister(dp_nio *n);
/* A datagram from an offload peer: its header and frame, or 0 when it is a plain frame. */
int dp_peer_unwrap(uint8_t *b, uint32_t len, const dp_vnet **h, uint8_t **f, uint32_t *flen);
void dp_peer_wrap(uint8_t prefix[DP_PEER_PREFIX], const dp_vnet *h);

/* pcap.c */
dp_pcap *dp_pcap_open_fd(int file, uint32_t link_type, int *err);
void dp_pcap_record(dp_pcap *pc, const uint8_t *f, uint32_t len, uint64_t now);
/* Writes the pending batch if it is due; returns the next deadline (UINT64_MAX if none). */
uint64_t dp_pcap_run(dp_pcap *pc, uint64_t now);
void dp_pcap_close(dp_pcap *pc);
/* 0, or the errno of the write that stopped the capture (the file ends on its last whole record). */
int dp_pcap_error(const dp_pcap *pc);

#ifdef __cplusplus
}
#endif
#endif
