/*
 * Engine threads: epoll over the NIO sockets, recvmmsg a batch, run each
 * frame through its port (filters, capture, forwarding), then sendmmsg what
 * each egress socket collected. Timed work (delay and rate queues, capture
 * batches) is driven by one timerfd armed for the earliest deadline.
 */
#include "dp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define ID_WAKE UINT64_MAX
#define ID_TIMER (UINT64_MAX - 1)
/* Room for the two re-tagged forms of one maximal frame. */
#define ARENA_SIZE (1024 * 1024)
#define SWEEP_NS 1000000000ull

uint64_t dp_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: uniform in [0, 1). */
double dp_random(dp_engine *e) {
  uint64_t x = e->rng;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  e->rng = x;
  return (double)((x * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
}

void dp_engine_wake(dp_engine *e) {
  uint64_t one = 1;
  ssize_t r = write(e->wakefd, &one, sizeof one);
  (void)r;
}

void dp_timed_add(dp_engine *e, dp_port *p) {
  if (p->timed) return;
  if (e->ntimed == e->timed_cap) {
    uint32_t cap = e->timed_cap ? e->timed_cap * 2 : 16;
    dp_port **t = realloc(e->timed, cap * sizeof *t);
    if (!t) return;
    e->timed = t;
    e->timed_cap = cap;
  }
  e->timed[e->ntimed++] = p;
  p->timed = 1;
  dp_engine_wake(e);
}

void dp_timed_remove(dp_engine *e, dp_port *p) {
  if (!p->timed) return;
  for (uint32_t i = 0; i < e->ntimed; i++) {
    if (e->timed[i] == p) {
      e->timed[i] = e->timed[--e->ntimed];
      break;
    }
  }
  p->timed = 0;
}

uint8_t *dp_arena_alloc(dp_engine *e, uint32_t len) {
  if (e->arena_used + len > ARENA_SIZE) return NULL;
  uint8_t *p = e->arena + e->arena_used;
  e->arena_used += (len + 7u) & ~7u;
  return p;
}


/* Makes room for the two re-tagged forms of a frame of `len` bytes, sending what is queued if the arena is short. */
void dp_arena_reserve(dp_engine *e, uint32_t len) {
  if (e->arena_used + 2 * (len + 16) > ARENA_SIZE) dp_flush(e);
}

/* A TAP takes one frame per write(); a full device queue (EAGAIN) drops the frame, as a full socket buffer does. */
static void flush_tap(dp_nio *n) {
  for (uint32_t i = 0; i < n->ntx; i++) {
    ssize_t w;
    do w = writev(n->fd, n->iov[i], (int)n->tx[i].msg_hdr.msg_iovlen);
    while (w < 0 && errno == EINTR);
    if (w >= 0) continue;
    n->port->c.drops++;
    if (errno != EAGAIN) n->port->c.errors++;
  }
  n->ntx = 0;
}

static void flush_nio(dp_engine *e, dp_nio *n) {
  if (n->kind == DP_NIO_TAP) {
    flush_tap(n);
    return;
  }
  uint32_t i = 0;
  while (i < n->ntx) {
    int sent = sendmmsg(n->fd, n->tx + i, n->ntx - i, MSG_DONTWAIT);
    if (sent > 0) {
      i += (uint32_t)sent;
      continue;
    }
    if (sent < 0 && errno == EINTR) continue;
    if (sent < 0 && (errno == EAGAIN || errno == ENOBUFS)) {
      n->port->c.drops += n->ntx - i;
      break;
    }
    /* A refused or failing send (nobody listens yet): counted, and the next frame is tried. */
    n->port->c.errors++;
    n->port->c.drops++;
    i++;
  }
  n->ntx = 0;
}

void dp_flush(dp_engine *e) {
  while (e->pending) {
    dp_nio *n = e->pending;
    e->pending = n->next_pending;
    n->pending = 0;
    flush_nio(e, n);
  }
  while (e->to_free) {
    dp_held *h = e->to_free;
    e->to_free = h->next;
    free(h);
  }
  e->arena_used = 0;
}

void dp_nio_queue(dp_engine *e, dp_nio *n, const uint8_t *f, uint32_t len, const dp_vnet *gso) {
  if (n->ntx == DP_BATCH) flush_nio(e, n);
  uint32_t i = n->ntx++;
  struct iovec *iov = n->iov[i];
  size_t prefix = 0;
  if (n->kind == DP_NIO_TAP && n->vnet) {
    prefix = DP_TAP_VNET;
    if (gso) memcpy(n->prefix[i], gso, DP_TAP_VNET);
    else memset(n->prefix[i], 0, DP_TAP_VNET);
  } else if (n->kind != DP_NIO_TAP && __atomic_load_n(&n->peer_offload, __ATOMIC_RELAXED)) {
    prefix = DP_PEER_PREFIX;
    dp_peer_wrap(n->prefix[i], gso);
  }
  if (prefix) {
    iov[0].iov_base = n->prefix[i];
    iov[0].iov_len = prefix;
    iov[1].iov_base = (void *)f;
    iov[1].iov_len = len;
    n->tx[i].msg_hdr.msg_iovlen = 2;
  } else {
    iov[0].iov_base = (void *)f;
    iov[0].iov_len = len;
    n->tx[i].msg_hdr.msg_iovlen = 1;
  }
  if (!n->pending) {
    n->pending = 1;
    n->next_pending = e->pending;
    e->pending = n;
  }
}

static uint32_t slot_for(dp_engine *e, dp_nio *n) {
  for (uint32_t i = 0; i < e->nio_cap; i++) {
    if (!e->nios[i]) {
      e->nios[i] = n;
      return i;
    }
  }
  uint32_t cap = e->nio_cap ? e->nio_cap * 2 : 64;
  dp_nio **nios = realloc(e->nios, cap * sizeof *nios);
  uint32_t *gens = realloc(e->gens, cap * sizeof *gens);
  if (nios) e->nios = nios;
  if (gens) e->gens = gens;
  if (!nios || !gens) return UINT32_MAX;
  for (uint32_t i = e->nio_cap; i < cap; i++) {
    e->nios[i] = NULL;
    e->gens[i] = 0;
  }
  uint32_t slot = e->nio_cap;
  e->nio_cap = cap;
  e->nios[slot] = n;
  return slot;
}

static int sockaddr_of(int family, const char *addr, int port, struct sockaddr_storage *ss, socklen_t *len) {
  memset(ss, 0, sizeof *ss);
  if (family == 6) {
    struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;
    s6->sin6_family = AF_INET6;
    s6->sin6_port = htons((uint16_t)port);
    *len = sizeof *s6;
    return inet_pton(AF_INET6, addr, &s6->sin6_addr) == 1 ? 0 : EINVAL;
  }
  struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
  s4->sin_family = AF_INET;
  s4->sin_port = htons((uint16_t)port);
  *len = sizeof *s4;
  return inet_pton(AF_INET, addr, &s4->sin_addr) == 1 ? 0 : EINVAL;
}

/* Puts an open descriptor on the port and starts receiving; closes it on failure. Returns 0 or an errno. */
static int attach(dp_engine *e, dp_port *p, int fd, int kind, int vnet) {
  dp_nio *n = calloc(1, sizeof *n);
  if (!n) {
    close(fd);
    return ENOMEM;
  }
  for (int i = 0; i < DP_BATCH; i++) {
    n->tx[i].msg_hdr.msg_iov = n->iov[i];
    n->tx[i].msg_hdr.msg_iovlen = 1;
  }
  n->fd = fd;
  n->kind = kind;
  n->vnet = vnet;
  n->port = p;
  n->slot = slot_for(e, n);
  if (n->slot == UINT32_MAX) {
    close(fd);
    free(n);
    return ENOMEM;
  }
  n->gen = ++e->gens[n->slot];
  struct epoll_event ev = {.events = EPOLLIN, .data.u64 = ((uint64_t)n->gen << 32) | n->slot};
  if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
    int err = errno;
    e->nios[n->slot] = NULL;
    close(fd);
    free(n);
    return err;
  }
  p->nio = n;
  dp_node_set_active(p->node);
  return 0;
}

/* Binds lport, connects to raddr:rport and starts receiving. Returns 0 or an errno, with the failing step in *stage (1 socket, 2 bind, 3 connect). */
int dp_nio_open(dp_engine *e, dp_port *p, int family, const char *bind_addr, int lport, const char *raddr, int rport, int *stage) {
  struct sockaddr_storage local, remote;
  socklen_t llen, rlen;
  *stage = 2;
  if (sockaddr_of(family, bind_addr, lport, &local, &llen)) return EINVAL;
  *stage = 3;
  if (sockaddr_of(family, raddr, rport, &remote, &rlen)) return EINVAL;
  *stage = 1;
  int fd = socket(family == 6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return errno;
  int size = RECV_BUFFER;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof size); /* best effort: the kernel caps it */
  if (family == 6) {
    int only = 1;
    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &only, sizeof only);
  }
  *stage = 2;
  if (bind(fd, (struct sockaddr *)&local, llen) < 0) {
    int err = errno;
    close(fd);
    return err;
  }
  *stage = 3;
  if (connect(fd, (struct sockaddr *)&remote, rlen) < 0) {
    int err = errno;
    close(fd);
    return err;
  }
  int err = attach(e, p, fd, DP_NIO_SOCKET, 0);
  if (err) {
    *stage = 1;
    return err;
  }
  p->nio->tunnel_port = (uint16_t)lport;
  dp_tunnel_port_add(p->nio->tunnel_port);
  socklen_t bound = sizeof p->nio->local;
  if (getsockname(fd, (struct sockaddr *)&p->nio->local, &bound) == 0) {
    memcpy(&p->nio->remote, &remote, rlen);
    dp_offload_register(p->nio);
  }
  return 0;
}

/* Opens a host-side NIO (DP_HOST_TAP, DP_HOST_ETHERNET) on `ifname` and attaches it to the port; a TAP with offloads when `offload`. Returns 0 or an errno. */
int dp_nio_open_host(dp_engine *e, dp_port *p, int kind, const char *ifname, int offload) {
  int fd;
  int tap = kind == DP_HOST_TAP;
  int err = dp_host_open(kind, ifname, tap && offload, &fd);
  if (!err) err = attach(e, p, fd, tap ? DP_NIO_TAP : DP_NIO_SOCKET, tap && offload);
  if (!err) p->nio->host = 1;
  return err;
}

/* Closes the port's socket at once (lport free on return), its filters (held frames counted as drops) and its MAC entries. */
void dp_nio_close(dp_engine *e, dp_port *p) {
  dp_nio *n = p->nio;
  if (!n) return;
  epoll_ctl(e->epfd, EPOLL_CTL_DEL, n->fd, NULL);
  if (n->kind == DP_NIO_SOCKET) dp_offload_unregister(n);
  if (n->tunnel_port) dp_tunnel_port_remove(n->tunnel_port);
  close(n->fd);
  e->nios[n->slot] = NULL;
  e->gens[n->slot]++;
  free(n);
  p->nio = NULL;
  if (p->filters) {
    dp_filters_free(p->filters, &p->c);
    p->filters = NULL;
  }
  if (!p->capture) dp_timed_remove(e, p);
  dp_node_set_active(p->node);
  if (p->node->kind == DP_SWITCH) dp_mac_flush_port(&p->node->macs, p);
}

/* Reads up to a batch of frames from a TAP (one frame per read()); behind its virtio header, the frame starts DP_PEER_PREFIX into its slot. */
static int read_tap(dp_engine *e, dp_nio *n) {
  int got = 0;
  size_t skip = n->vnet ? DP_PEER_PREFIX - DP_TAP_VNET : 0;
  while (got < DP_BATCH) {
    ssize_t r = read(n->fd, e->rxbuf + (size_t)got * DP_SLOT + skip, DP_SLOT - skip);
    if (r < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN) n->port->c.errors++;
      break;
    }
    e->rx[got++].msg_len = (unsigned)r;
  }
  return got;
}

static void receive(dp_engine *e, dp_nio *n) {
  int got = n->kind == DP_NIO_TAP ? read_tap(e, n) : recvmmsg(n->fd, e->rx, DP_BATCH, MSG_DONTWAIT, NULL);
  if (got < 0) {
    /* A pending ICMP error surfaces here: counted, never fatal. */
    if (errno != EAGAIN && errno != EINTR) n->port->c.errors++;
    return;
  }
  uint64_t now = dp_now();
  dp_port *p = n->port;
  int peer = n->kind == DP_NIO_SOCKET && __atomic_load_n(&n->peer_offload, __ATOMIC_RELAXED);
  for (int i = 0; i < got; i++) {
    uint8_t *b = e->rxbuf + (size_t)i * DP_SLOT, *f = b;
    uint32_t len = e->rx[i].msg_len;
    const dp_vnet *gso = NULL;
    if (n->vnet) {
      if (len < DP_TAP_VNET) {
        p->c.errors++;
        continue;
      }
      gso = dp_vnet_needed((const dp_vnet *)(b + DP_PEER_PREFIX - DP_TAP_VNET));
      f = b + DP_PEER_PREFIX;
      len -= DP_TAP_VNET;
    } else if (peer) {
      dp_peer_unwrap(b, len, &gso, &f, &len);
    }
    if (n->host && dp_carries_tunnel(f, len)) {
      /* One of this process's own tunnel datagrams, seen on a host interface: sent on, it would loop. */
      p->c.frames_in++;
      p->c.bytes_in += len;
      p->c.drops++;
      continue;
    }
    dp_ingress(e, p, f, len, gso, now);
    /* A frame's path may close nothing, but it may flush: the batch's buffers stay valid until dp_flush. */
  }
  dp_flush(e);
}

static void run_timers(dp_engine *e, uint64_t now) {
  uint64_t next = UINT64_MAX;
  for (uint32_t i = 0; i < e->ntimed; i++) {
    dp_port *p = e->timed[i];
    if (p->filters) {
      uint64_t d = dp_filters_run(e, p, now);
      if (d < next) next = d;
    }
    if (p->capture) {
      uint64_t d = dp_pcap_run(p->capture, now);
      if (d < next) next = d;
    }
  }
  dp_flush(e);
  if (next != e->armed) {
    struct itimerspec its = {0};
    if (next != UINT64_MAX) {
      if (next <= now) next = now + 1000;
      its.it_value.tv_sec = (time_t)(next / 1000000000ull);
      its.it_value.tv_nsec = (long)(next % 1000000000ull);
    }
    timerfd_settime(e->timerfd, TFD_TIMER_ABSTIME, &its, NULL);
    e->armed = next;
  }
}

static void sweep(dp_engine *e, uint64_t now) {
  if (now < e->next_sweep) return;
  e->next_sweep = now + SWEEP_NS;
  for (dp_node *n = e->nodes; n; n = n->next)
    if (n->kind == DP_SWITCH) dp_mac_sweep(&n->macs, now);
}

static void *engine_main(void *arg) {
  dp_engine *e = arg;
  struct epoll_event evs[DP_BATCH];
  for (;;) {
    int n = epoll_wait(e->epfd, evs, DP_BATCH, -1);
    if (n < 0 && errno != EINTR) break;
    pthread_mutex_lock(&e->lock);
    if (e->stop) {
      pthread_mutex_unlock(&e->lock);
      break;
    }
    for (int i = 0; i < n; i++) {
      uint64_t id = evs[i].data.u64;
      if (id == ID_WAKE || id == ID_TIMER) {
        uint64_t v;
        ssize_t r = read(id == ID_WAKE ? e->wakefd : e->timerfd, &v, sizeof v);
        (void)r;
        if (id == ID_TIMER) e->armed = UINT64_MAX;
        continue;
      }
      uint32_t slot = (uint32_t)id, gen = (uint32_t)(id >> 32);
      if (slot < e->nio_cap && e->nios[slot] && e->gens[slot] == gen) receive(e, e->nios[slot]);
    }
    uint64_t now = dp_now();
    if (e->ntimed) run_timers(e, now);
    else if (e->armed != UINT64_MAX) run_timers(e, now);
    sweep(e, now);
    pthread_mutex_unlock(&e->lock);
  }
  return NULL;
}

int dp_engine_start(dp_engine *e) {
  memset(e, 0, sizeof *e);
  pthread_mutex_init(&e->lock, NULL);
  e->armed = UINT64_MAX;
  e->rng = dp_now() ^ ((uint64_t)(uintptr_t)e << 17) ^ 0x9E3779B97F4A7C15ull;
  if (!e->rng) e->rng = 1;
  e->rxbuf = malloc((size_t)DP_BATCH * DP_SLOT);
  e->arena = malloc(ARENA_SIZE);
  e->cuts = malloc(DP_CUTS_SIZE);
  e->epfd = epoll_create1(EPOLL_CLOEXEC);
  e->wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  e->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (!e->rxbuf || !e->arena || !e->cuts || e->epfd < 0 || e->wakefd < 0 || e->timerfd < 0) return -1;
  for (int i = 0; i < DP_BATCH; i++) {
    e->rxiov[i].iov_base = e->rxbuf + (size_t)i * DP_SLOT;
    e->rxiov[i].iov_len = DP_SLOT;
    e->rx[i].msg_hdr.msg_iov = &e->rxiov[i];
    e->rx[i].msg_hdr.msg_iovlen = 1;
  }
  struct epoll_event wake = {.events = EPOLLIN, .data.u64 = ID_WAKE};
  struct epoll_event timer = {.events = EPOLLIN, .data.u64 = ID_TIMER};
  if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->wakefd, &wake) < 0) return -1;
  if (epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->timerfd, &timer) < 0) return -1;
  if (pthread_create(&e->thread, NULL, engine_main, e) != 0) return -1;
  pthread_setname_np(e->thread, "emuctl-dp"); /* names it in /proc/<pid>/task, top -H, perf */
  e->started = 1;
  return 0;
}

/* Stops the thread; the caller frees the nodes (and so the sockets and captures) afterwards. */
void dp_engine_stop(dp_engine *e) {
  if (e->started) {
    pthread_mutex_lock(&e->lock);
    e->stop = 1;
    pthread_mutex_unlock(&e->lock);
    dp_engine_wake(e);
    pthread_join(e->thread, NULL);
    e->started = 0;
  }
  if (e->epfd > 0) close(e->epfd);
  if (e->wakefd > 0) close(e->wakefd);
  if (e->timerfd > 0) close(e->timerfd);
  e->epfd = e->wakefd = e->timerfd = -1;
  free(e->rxbuf);
  free(e->arena);
  free(e->cuts);
  free(e->nios);
  free(e->gens);
  free(e->timed);
  e->rxbuf = e->arena = e->cuts = NULL;
  e->nios = NULL;
  e->gens = NULL;
  e->timed = NULL;
}
