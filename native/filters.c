/*
 * GNS3 link filters on a port's ingress, in the TypeScript engine's fixed
 * order (filters/chain.ts): bpf, frequency_drop, packet_loss, corrupt,
 * duplicate, then the timed ones, rate and delay. A frame a timed filter
 * holds is copied out of the receive batch once; delayed frames are
 * scheduled on the engine's timer, never slept on.
 */
#include "dp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Frames held at most by one delay stage (as netem's limit). */
#define MAX_DELAY_BYTES (64ull * 1024 * 1024)
#define NS_PER_MS 1000000.0

enum { ST_BPF, ST_FREQ, ST_LOSS, ST_CORRUPT, ST_DUP, ST_RATE, ST_DELAY, ST_TAIL };

struct dp_filters {
  uint32_t nprog;
  uint32_t **progs;
  uint32_t *ninsns;
  int32_t freq;
  int32_t freq_count;
  double loss, corrupt, dup;
  /* delay: a min-heap by (due, seq) */
  double delay_ns, jitter_ns;
  dp_held **heap;
  uint32_t hn, hcap;
  uint64_t hbytes, seq;
  /* rate: a token bucket (bytes) and a FIFO */
  double bytes_per_ns, burst, max_queued, tokens;
  uint64_t last;
  dp_held *rq_head, *rq_tail;
  uint64_t rq_bytes;
};

dp_filters *dp_filters_new(const dp_filter_spec *s, uint32_t nprog, const uint32_t *const *progs, const uint32_t *lens) {
  dp_filters *f = calloc(1, sizeof *f);
  if (!f) return NULL;
  if (nprog) {
    f->progs = calloc(nprog, sizeof *f->progs);
    f->ninsns = calloc(nprog, sizeof *f->ninsns);
    if (!f->progs || !f->ninsns) goto fail;
    for (uint32_t i = 0; i < nprog; i++) {
      f->progs[i] = malloc((size_t)lens[i] * 4 * sizeof(uint32_t));
      if (!f->progs[i]) goto fail;
      memcpy(f->progs[i], progs[i], (size_t)lens[i] * 4 * sizeof(uint32_t));
      f->ninsns[i] = lens[i];
      f->nprog = i + 1;
    }
  }
  f->freq = (int32_t)s->frequency_drop;
  f->loss = s->packet_loss / 100.0;
  f->corrupt = s->corrupt / 100.0;
  f->dup = s->duplicate / 100.0;
  f->delay_ns = s->delay_ms * NS_PER_MS;
  f->jitter_ns = s->delay_ms > 0 ? s->jitter_ms * NS_PER_MS : 0;
  if (s->rate_kbps > 0) {
    double bytes_per_ms = s->rate_kbps / 8; /* kbit/s = 1000 bit/s */
    f->bytes_per_ns = bytes_per_ms / NS_PER_MS;
    f->burst = fmax(3028, bytes_per_ms * 5);
    f->max_queued = fmax(65536, bytes_per_ms * 100);
    f->tokens = f->burst;
    f->last = dp_now();
  }
  return f;
fail:
  dp_filters_free(f, NULL);
  return NULL;
}

void dp_filters_free(dp_filters *f, dp_counters *c) {
  if (!f) return;
  for (uint32_t i = 0; i < f->nprog; i++) free(f->progs[i]);
  free(f->progs);
  free(f->ninsns);
  for (uint32_t i = 0; i < f->hn; i++) free(f->heap[i]);
  if (c) c->drops += f->hn;
  free(f->heap);
  while (f->rq_head) {
    dp_held *h = f->rq_head;
    f->rq_head = h->next;
    free(h);
    if (c) c->drops++;
  }
  free(f);
}

int dp_filters_timed(const dp_filters *f) { return f->delay_ns > 0 || f->bytes_per_ns > 0; }

static dp_held *hold(const uint8_t *frame, uint32_t len) {
  dp_held *h = malloc(sizeof *h + len);
  if (!h) return NULL;
  h->next = NULL;
  h->len = len;
  memcpy(h->data, frame, len);
  return h;
}

static inline int before(const dp_held *a, const dp_held *b) { return a->due < b->due || (a->due == b->due && a->seq < b->seq); }

static int heap_push(dp_filters *f, dp_held *h) {
  if (f->hn == f->hcap) {
    uint32_t cap = f->hcap ? f->hcap * 2 : 64;
    dp_held **heap = realloc(f->heap, cap * sizeof *heap);
    if (!heap) return -1;
    f->heap = heap;
    f->hcap = cap;
  }
  uint32_t i = f->hn++;
  while (i > 0) {
    uint32_t parent = (i - 1) / 2;
    if (before(f->heap[parent], h)) break;
    f->heap[i] = f->heap[parent];
    i = parent;
  }
  f->heap[i] = h;
  f->hbytes += h->len;
  return 0;
}

static dp_held *heap_pop(dp_filters *f) {
  dp_held *top = f->heap[0];
  dp_held *last = f->heap[--f->hn];
  uint32_t i = 0, n = f->hn;
  if (n > 0) {
    for (;;) {
      uint32_t c = 2 * i + 1;
      if (c >= n) break;
      if (c + 1 < n && before(f->heap[c + 1], f->heap[c])) c++;
      if (before(last, f->heap[c])) break;
      f->heap[i] = f->heap[c];
      i = c;
    }
    f->heap[i] = last;
  }
  f->hbytes -= top->len;
  if (n == 0) f->seq = 0;
  return top;
}

/* The end of the chain: capture and forwarding; a held frame is freed once the batch is sent. */
static void tail(dp_engine *e, dp_port *p, uint8_t *frame, uint32_t len, dp_held *h, uint64_t now) {
  dp_after_filters(e, p, frame, len, now);
  if (h) {
    h->next = e->to_free;
    e->to_free = h;
  }
}

static void drop(dp_port *p, dp_held *h) {
  p->c.drops++;
  free(h);
}

static void run_from(dp_engine *e, dp_port *p, int stage, uint8_t *frame, uint32_t len, dp_held *h, uint64_t now);

static void delay_push(dp_engine *e, dp_port *p, uint8_t *frame, uint32_t len, dp_held *h, uint64_t now) {
  dp_filters *f = p->filters;
  if (f->hbytes + len > MAX_DELAY_BYTES) return drop(p, h);
  if (!h && !(h = hold(frame, len))) return drop(p, NULL);
  double due = (double)now + f->delay_ns;
  if (f->jitter_ns > 0) due = fmax((double)now, due + (dp_random(e) * 2 - 1) * f->jitter_ns);
  h->due = (uint64_t)due;
  h->seq = f->seq++;
  if (heap_push(f, h) < 0) return drop(p, h);
  dp_timed_add(e, p);
}

static void refill(dp_filters *f, uint64_t now) {
  f->tokens = fmin(f->burst, f->tokens + (double)(now - f->last) * f->bytes_per_ns);
  f->last = now;
}

static void rate_send_queued(dp_engine *e, dp_port *p, uint64_t now) {
  dp_filters *f = p->filters;
  while (f->rq_head && f->tokens >= 0) {
    dp_held *h = f->rq_head;
    f->rq_head = h->next;
    if (!f->rq_head) f->rq_tail = NULL;
    f->rq_bytes -= h->len;
    h->next = NULL;
    f->tokens -= h->len;
    run_from(e, p, ST_DELAY, h->data, h->len, h, now);
  }
}

static void rate_push(dp_engine *e, dp_port *p, uint8_t *frame, uint32_t len, dp_held *h, uint64_t now) {
  dp_filters *f = p->filters;
  refill(f, now);
  /* Queued frames go first, so order is kept; tokens may go negative by one frame, so a frame larger than the bucket still passes. */
  if (f->rq_head) rate_send_queued(e, p, now);
  if (!f->rq_head && f->tokens >= 0) {
    f->tokens -= len;
    run_from(e, p, ST_DELAY, frame, len, h, now);
    return;
  }
  if ((double)(f->rq_bytes + len) > f->max_queued) return drop(p, h);
  if (!h && !(h = hold(frame, len))) return drop(p, NULL);
  h->next = NULL;
  if (f->rq_tail) f->rq_tail->next = h;
  else f->rq_head = h;
  f->rq_tail = h;
  f->rq_bytes += len;
  dp_timed_add(e, p);
}

static void run_from(dp_engine *e, dp_port *p, int stage, uint8_t *frame, uint32_t len, dp_held *h, uint64_t now) {
  dp_filters *f = p->filters;
  switch (stage) {
  case ST_BPF:
    for (uint32_t i = 0; i < f->nprog; i++)
      if (dp_bpf_run(f->progs[i], f->ninsns[i], frame, len) != 0) return drop(p, h);
    /* fall through */
  case ST_FREQ:
    if (f->freq != 0 && (f->freq < 0 || ++f->freq_count >= f->freq)) {
      f->freq_count = 0;
      return drop(p, h);
    }
    /* fall through */
  case ST_LOSS:
    if (f->loss > 0 && dp_random(e) < f->loss) return drop(p, h);
    /* fall through */
  case ST_CORRUPT:
    /* The frame is ours (a receive slot or a held copy): flipped in place, one byte past the Ethernet header, never to itself. */
    if (f->corrupt > 0 && len > DP_ETH_HEADER && dp_random(e) < f->corrupt) {
      uint32_t at = DP_ETH_HEADER + (uint32_t)floor(dp_random(e) * (len - DP_ETH_HEADER));
      frame[at] ^= (uint8_t)(1 + (uint32_t)floor(dp_random(e) * 255));
    }
    /* fall through */
  case ST_DUP:
    if (f->dup > 0 && !h) {
      run_from(e, p, ST_RATE, frame, len, NULL, now);
      if (dp_random(e) < f->dup) run_from(e, p, ST_RATE, frame, len, NULL, now);
      return;
    }
    /* fall through */
  case ST_RATE:
    if (f->bytes_per_ns > 0) return rate_push(e, p, frame, len, h, now);
    /* fall through */
  case ST_DELAY:
    if (f->delay_ns > 0) return delay_push(e, p, frame, len, h, now);
    /* fall through */
  default:
    tail(e, p, frame, len, h, now);
  }
}

void dp_filters_push(dp_engine *e, dp_port *p, uint8_t *frame, uint32_t len, uint64_t now) {
  run_from(e, p, ST_BPF, frame, len, NULL, now);
}

uint64_t dp_filters_run(dp_engine *e, dp_port *p, uint64_t now) {
  dp_filters *f = p->filters;
  uint64_t next = UINT64_MAX;
  if (f->bytes_per_ns > 0 && f->rq_head) {
    refill(f, now);
    rate_send_queued(e, p, now);
    if (f->rq_head) next = now + (uint64_t)(f->tokens >= 0 ? 0 : ceil(-f->tokens / f->bytes_per_ns));
  }
  if (f->delay_ns > 0) {
    while (f->hn && f->heap[0]->due <= now) {
      dp_held *h = heap_pop(f);
      tail(e, p, h->data, h->len, h, now);
    }
    if (f->hn && f->heap[0]->due < next) next = f->heap[0]->due;
  }
  return next;
}
