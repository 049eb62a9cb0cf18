/*
 * MAC learning table of one switch: (VLAN, MAC) -> port, with ageing.
 * Open addressing with linear probing; deletion shifts the run back, so there
 * are no tombstones. Bounded at 65536 entries: under a MAC flood, new MACs
 * are not learned (the TypeScript table does the same).
 */
#include "dp.h"

#include <stdlib.h>

#define MAX_ENTRIES 65536u
#define MAX_CAP (MAX_ENTRIES * 2u)

static inline uint32_t hash(uint64_t k, uint32_t mask) {
  k ^= k >> 33;
  k *= 0xff51afd7ed558ccdull;
  k ^= k >> 33;
  return (uint32_t)k & mask;
}

int dp_mac_init(dp_mactable *t, uint64_t ageing_ns) {
  t->cap = 64;
  t->size = 0;
  t->ageing_ns = ageing_ns;
  t->slots = calloc(t->cap, sizeof *t->slots);
  return t->slots ? 0 : -1;
}

void dp_mac_free(dp_mactable *t) {
  free(t->slots);
  t->slots = NULL;
  t->cap = t->size = 0;
}

static void put(dp_mac_entry *slots, uint32_t mask, const dp_mac_entry *e) {
  uint32_t i = hash(e->key, mask);
  while (slots[i].key) i = (i + 1) & mask;
  slots[i] = *e;
}

static int grow(dp_mactable *t) {
  uint32_t cap = t->cap * 2;
  dp_mac_entry *slots = calloc(cap, sizeof *slots);
  if (!slots) return -1;
  for (uint32_t i = 0; i < t->cap; i++)
    if (t->slots[i].key) put(slots, cap - 1, &t->slots[i]);
  free(t->slots);
  t->slots = slots;
  t->cap = cap;
  return 0;
}

static void remove_at(dp_mactable *t, uint32_t i) {
  uint32_t mask = t->cap - 1;
  t->slots[i].key = 0;
  t->size--;
  /* Shift back the entries of the run that follows, so lookups need no tombstones. */
  uint32_t j = i;
  for (;;) {
    j = (j + 1) & mask;
    if (!t->slots[j].key) return;
    uint32_t home = hash(t->slots[j].key, mask);
    /* Entry j may move to the hole at i unless its home lies cyclically in (i, j]. */
    if ((i <= j) ? (i < home && home <= j) : (i < home || home <= j)) continue;
    t->slots[i] = t->slots[j];
    t->slots[j].key = 0;
    i = j;
  }
}

void dp_mac_learn(dp_mactable *t, uint64_t key, dp_port *p, uint64_t now) {
  uint32_t mask = t->cap - 1;
  uint32_t i = hash(key, mask);
  while (t->slots[i].key) {
    if (t->slots[i].key == key) {
      t->slots[i].port = p;
      t->slots[i].seen = now;
      return;
    }
    i = (i + 1) & mask;
  }
  if (t->size >= MAX_ENTRIES) return;
  if ((t->size + 1) * 2 > t->cap) {
    if (t->cap >= MAX_CAP || grow(t) < 0) return;
    dp_mac_entry e = {key, p, now};
    put(t->slots, t->cap - 1, &e);
  } else {
    t->slots[i] = (dp_mac_entry){key, p, now};
  }
  t->size++;
}

dp_port *dp_mac_lookup(dp_mactable *t, uint64_t key, uint64_t now) {
  uint32_t mask = t->cap - 1;
  uint32_t i = hash(key, mask);
  while (t->slots[i].key) {
    if (t->slots[i].key == key) {
      if (t->ageing_ns && now - t->slots[i].seen > t->ageing_ns) return NULL;
      return t->slots[i].port;
    }
    i = (i + 1) & mask;
  }
  return NULL;
}

/* Removes the entries matching `p` (or, with p NULL, the aged ones). Restarts the scan at a hole, since shifting may bring an unvisited entry back. */
static void remove_where(dp_mactable *t, dp_port *p, uint64_t now) {
  uint32_t i = 0;
  while (i < t->cap) {
    dp_mac_entry *s = &t->slots[i];
    int gone = s->key && (p ? s->port == p : (t->ageing_ns && now - s->seen > t->ageing_ns));
    if (gone) remove_at(t, i);
    else i++;
  }
}

void dp_mac_flush_port(dp_mactable *t, dp_port *p) { remove_where(t, p, 0); }

void dp_mac_flush_all(dp_mactable *t) {
  for (uint32_t i = 0; i < t->cap; i++) t->slots[i].key = 0;
  t->size = 0;
}

void dp_mac_sweep(dp_mactable *t, uint64_t now) {
  if (t->ageing_ns && t->size) remove_where(t, NULL, now);
}
