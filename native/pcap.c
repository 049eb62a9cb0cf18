/*
 * pcap writer for the engine threads: records are copied into a batch and
 * written with one write() per ~64 KiB or ~50 ms, always whole records, so
 * the file parses at any moment and after a kill -9 (short of the last
 * batch). Same format and policy as src/daemon/dataplane/pcap-writer.ts.
 */
#include "dp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define SNAPLEN 65535u
#define RECORD_HEADER 16u
#define FLUSH_BYTES (64u * 1024)
#define FLUSH_NS (50ull * 1000000)
#define BATCH_SIZE (FLUSH_BYTES + RECORD_HEADER + SNAPLEN)

struct dp_pcap {
  int fd;
  int error;
  /* Bytes of the file that hold the header and whole records: a failed write is cut back to this. */
  off_t good;
  uint8_t *buf;
  uint32_t used, records;
  uint64_t first, dropped;
};

static inline void le32(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
  p[2] = (uint8_t)(v >> 16);
  p[3] = (uint8_t)(v >> 24);
}

static int write_all(int fd, const uint8_t *b, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, b, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return w < 0 ? errno : EIO;
    b += w;
    n -= (size_t)w;
  }
  return 0;
}

/*
 * Writes to a duplicate of `file`, a descriptor the caller opened (with no link followed, truncated
 * or in append mode) and keeps; an empty file gets the 24-byte global header first.
 */
dp_pcap *dp_pcap_open_fd(int file, uint32_t link_type, int *err) {
  int fd = fcntl(file, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) {
    *err = errno;
    return NULL;
  }
  struct stat st;
  off_t size = fstat(fd, &st) == 0 ? st.st_size : 0;
  if (size == 0) {
    uint8_t h[24] = {0};
    le32(h, 0xa1b2c3d4);
    h[4] = 2; /* version 2.4, little-endian like every field: readers detect the order from the magic */
    h[6] = 4;
    le32(h + 16, SNAPLEN);
    le32(h + 20, link_type);
    int e = write_all(fd, h, sizeof h);
    if (e) {
      close(fd);
      *err = e;
      return NULL;
    }
    size = sizeof h;
  }
  dp_pcap *pc = calloc(1, sizeof *pc);
  if (pc) pc->buf = malloc(BATCH_SIZE);
  if (!pc || !pc->buf) {
    if (pc) free(pc);
    close(fd);
    *err = ENOMEM;
    return NULL;
  }
  pc->fd = fd;
  pc->good = size;
  return pc;
}

/* A write that fails (full disk) is cut back to the last whole record, and the capture records no more. */
static void flush(dp_pcap *pc) {
  if (!pc->used || pc->error) return;
  int e = write_all(pc->fd, pc->buf, pc->used);
  if (e) {
    pc->error = e;
    pc->dropped += pc->records;
    if (ftruncate(pc->fd, pc->good) != 0) {
      /* Nothing more to do: a reader then sees a cut last record, as before this writer stopped. */
    }
  } else {
    pc->good += pc->used;
  }
  pc->used = pc->records = 0;
}

int dp_pcap_error(const dp_pcap *pc) {
  return pc->error;
}

void dp_pcap_record(dp_pcap *pc, const uint8_t *f, uint32_t len, uint64_t now) {
  if (pc->error) {
    pc->dropped++;
    return;
  }
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint32_t caplen = len < SNAPLEN ? len : SNAPLEN;
  uint8_t *o = pc->buf + pc->used;
  le32(o, (uint32_t)ts.tv_sec);
  le32(o + 4, (uint32_t)(ts.tv_nsec / 1000));
  le32(o + 8, caplen);
  le32(o + 12, len);
  memcpy(o + RECORD_HEADER, f, caplen);
  if (!pc->records) pc->first = now;
  pc->used += RECORD_HEADER + caplen;
  pc->records++;
  if (pc->used >= FLUSH_BYTES) flush(pc);
}

uint64_t dp_pcap_run(dp_pcap *pc, uint64_t now) {
  if (!pc->records) return UINT64_MAX;
  if (now >= pc->first + FLUSH_NS) {
    flush(pc);
    return UINT64_MAX;
  }
  return pc->first + FLUSH_NS;
}

void dp_pcap_close(dp_pcap *pc) {
  flush(pc);
  close(pc->fd);
  free(pc->buf);
  free(pc);
}
