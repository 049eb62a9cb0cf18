/*
 * The frame path of a port: receive -> runt check -> suspend -> filters ->
 * capture -> the node's forwarding -> transmit on the egress ports (capture
 * again, as the frame goes on the wire). Same semantics as the TypeScript
 * engine (src/daemon/dataplane/switch-engine.ts, port.ts), which documents
 * the VLAN rules.
 */
#include "dp.h"

#include <stdlib.h>
#include <string.h>

static inline int is_tag_tpid(uint32_t t) { return t == 0x8100 || t == 0x88a8 || t == 0x9100 || t == 0x9200; }

static inline uint64_t mac_at(const uint8_t *b) {
  return ((uint64_t)b[0] << 40) | ((uint64_t)b[1] << 32) | ((uint64_t)b[2] << 24) | ((uint64_t)b[3] << 16) | ((uint64_t)b[4] << 8) | b[5];
}

void dp_node_set_active(dp_node *n) {
  n->nactive = 0;
  for (uint32_t i = 0; i < n->nports; i++)
    if (n->ports[i]->nio) n->active[n->nactive++] = n->ports[i];
}

static void transmit(dp_engine *e, dp_port *out, const uint8_t *f, uint32_t len, const dp_vnet *gso, uint64_t now);

typedef struct {
  dp_port *port;
  uint64_t now;
} cut_ctx;

static void transmit_cut(dp_engine *e, void *ctx, uint8_t *f, uint32_t len) {
  cut_ctx *c = ctx;
  transmit(e, c->port, f, len, NULL, c->now);
}

/* An offloaded frame goes out whole where the NIO takes it and nothing captures it; elsewhere as the wire frames it stands for. */
static void transmit(dp_engine *e, dp_port *out, const uint8_t *f, uint32_t len, const dp_vnet *gso, uint64_t now) {
  if (!out->nio) return;
  if (gso && (out->capture || !dp_nio_takes_gso(out->nio, len))) {
    cut_ctx c = {out, now};
    if (dp_cut(e, f, len, gso, transmit_cut, &c)) out->c.errors++, out->c.drops++;
    return;
  }
  uint64_t frames = 1, bytes = len;
  if (gso) dp_wire_size(f, len, gso, &frames, &bytes);
  if (out->suspended) {
    out->c.drops += frames;
    return;
  }
  out->c.frames_out += frames;
  out->c.bytes_out += bytes;
  if (out->capture) dp_pcap_record(out->capture, f, len, now);
  dp_nio_queue(e, out->nio, f, len, gso);
}

/* The frame being switched and its lazily built egress forms; an offloaded one (gso) is never re-tagged whole. */
typedef struct {
  const uint8_t *frame;
  uint32_t len;
  uint16_t vid, push_tpid;
  const uint8_t *inner, *outer;
  uint32_t inner_len, outer_len;
  const dp_vnet *gso;
  int tagged;
} fwd_ctx;

static void emit(dp_engine *e, fwd_ctx *x, dp_port *out, uint64_t now);

typedef struct {
  const fwd_ctx *x;
  dp_port *out;
  uint64_t now;
} retag_ctx;

/* One wire frame cut from an offloaded frame that leaves with another tag: switched as if it had come so. */
static void emit_cut(dp_engine *e, void *ctx, uint8_t *f, uint32_t len) {
  const retag_ctx *r = ctx;
  dp_arena_reserve(e, len);
  fwd_ctx y = {.frame = f, .len = len, .vid = r->x->vid, .push_tpid = r->x->push_tpid, .tagged = r->x->tagged};
  if (y.tagged) {
    y.outer = f;
    y.outer_len = len;
  } else {
    y.inner = f;
    y.inner_len = len;
  }
  emit(e, &y, r->out, r->now);
}

static void inner_form(dp_engine *e, fwd_ctx *x) {
  if (x->inner) return;
  uint8_t *o = dp_arena_alloc(e, x->len - 4);
  if (!o) return;
  memcpy(o, x->frame, 12);
  memcpy(o + 12, x->frame + 16, x->len - 16);
  x->inner = o;
  x->inner_len = x->len - 4;
}

static void outer_form(dp_engine *e, fwd_ctx *x) {
  if (x->outer) return;
  uint8_t *o = dp_arena_alloc(e, x->len + 4);
  if (!o) return;
  memcpy(o, x->frame, 12);
  o[12] = (uint8_t)(x->push_tpid >> 8);
  o[13] = (uint8_t)x->push_tpid;
  o[14] = (uint8_t)((x->vid >> 8) & 0x0f);
  o[15] = (uint8_t)x->vid;
  memcpy(o + 16, x->frame + 12, x->len - 12);
  x->outer = o;
  x->outer_len = x->len + 4;
}

static void emit(dp_engine *e, fwd_ctx *x, dp_port *out, uint64_t now) {
  int inner;
  if (out->mode == DP_DOT1Q) inner = out->vlan == x->vid;
  else if (out->vlan == x->vid) inner = 1; /* access, or qinq (its inner form is the customer frame) */
  else return;
  if (x->gso) {
    if (inner != x->tagged) {
      transmit(e, out, x->frame, x->len, x->gso, now); /* leaves with the tags it came with: whole */
      return;
    }
    retag_ctx r = {x, out, now};
    if (dp_cut(e, x->frame, x->len, x->gso, emit_cut, &r)) out->c.errors++, out->c.drops++;
    return;
  }
  if (inner) {
    inner_form(e, x);
    if (x->inner) transmit(e, out, x->inner, x->inner_len, NULL, now);
    else out->c.drops++;
  } else {
    outer_form(e, x);
    if (x->outer) transmit(e, out, x->outer, x->outer_len, NULL, now);
    else out->c.drops++;
  }
}

static void switch_forward(dp_engine *e, dp_node *n, dp_port *in, const uint8_t *f, uint32_t len, const dp_vnet *gso, uint64_t now) {
  uint16_t vid = in->vlan;
  int tagged = 0;
  if (in->mode == DP_DOT1Q && is_tag_tpid(((uint32_t)f[12] << 8) | f[13])) {
    vid = (uint16_t)((((uint32_t)f[14] << 8) | f[15]) & 0x0fff);
    /* A truncated tag, or VLAN 0 (priority tag), is not switched, as in dynamips. */
    if (len < 18 || vid == 0) {
      in->c.drops++;
      return;
    }
    tagged = 1;
  }
  if (!gso) dp_arena_reserve(e, len);
  fwd_ctx x = {.frame = f, .len = len, .vid = vid, .push_tpid = in->mode == DP_QINQ ? in->tpid : DP_TPID_8021Q, .gso = gso, .tagged = tagged};
  if (tagged) {
    x.outer = f;
    x.outer_len = len;
  } else {
    x.inner = f;
    x.inner_len = len;
  }
  /* Group (multicast) source addresses are never learned. */
  if ((f[6] & 1) == 0) dp_mac_learn(&n->macs, ((uint64_t)vid << 48) | mac_at(f + 6), in, now);
  dp_port *out = (f[0] & 1) == 0 ? dp_mac_lookup(&n->macs, ((uint64_t)vid << 48) | mac_at(f), now) : NULL;
  if (out) {
    if (out != in) emit(e, &x, out, now);
    return;
  }
  for (uint32_t i = 0; i < n->nactive; i++)
    if (n->active[i] != in) emit(e, &x, n->active[i], now);
}

static void forward(dp_engine *e, dp_port *p, uint8_t *f, uint32_t len, const dp_vnet *gso, uint64_t now) {
  if (p->capture) dp_pcap_record(p->capture, f, len, now);
  dp_node *n = p->node;
  if (n->kind == DP_HUB) {
    for (uint32_t i = 0; i < n->nactive; i++)
      if (n->active[i] != p) transmit(e, n->active[i], f, len, gso, now);
    return;
  }
  switch_forward(e, n, p, f, len, gso, now);
}

void dp_after_filters(dp_engine *e, dp_port *p, uint8_t *f, uint32_t len, uint64_t now) {
  forward(e, p, f, len, NULL, now);
}

static void ingress_cut(dp_engine *e, void *ctx, uint8_t *f, uint32_t len) {
  cut_ctx *c = ctx;
  dp_ingress(e, c->port, f, len, NULL, c->now);
}

/* An offloaded frame crosses a node whole where it can; the port's filters and its capture see the wire frames it stands for. */
void dp_ingress(dp_engine *e, dp_port *p, uint8_t *f, uint32_t len, const dp_vnet *gso, uint64_t now) {
  if (gso && (p->filters || p->capture)) {
    cut_ctx c = {p, now};
    if (dp_cut(e, f, len, gso, ingress_cut, &c)) p->c.frames_in++, p->c.errors++, p->c.drops++;
    return;
  }
  uint64_t frames = 1, bytes = len;
  if (gso) dp_wire_size(f, len, gso, &frames, &bytes);
  p->c.frames_in += frames;
  p->c.bytes_in += bytes;
  if (!frames) {
    p->c.frames_in++;
    p->c.errors++;
    p->c.drops++;
    return;
  }
  if (len < DP_ETH_HEADER || p->suspended || p->node->suspended) {
    p->c.drops += frames;
    return;
  }
  if (p->filters) dp_filters_push(e, p, f, len, now);
  else forward(e, p, f, len, gso, now);
}
