/* tapblast: send udpblast frames out of a network interface (a TAP's kernel side), so that
 * whoever holds the TAP's file descriptor reads them, as frames a container sends on its eth0.
 *
 * usage: tapblast -i IFNAME [-s SIZE] [-d SECONDS] [-r PPS] [-k BATCH]
 *
 *  -s  frame size in bytes (default 64, min 42)
 *  -d  stop after SECONDS (default 3)
 *  -r  offered rate in frames/s (0 = as fast as possible)
 *  -k  frames per sendmmsg() call (default 32)
 *
 * Frames have udpblast's layout (common.h), so udpsink counts them, their loss and latency.
 * The socket is AF_PACKET, SOCK_RAW, protocol 0 (it sends, it receives nothing), bound to the
 * interface. Prints one key=value summary line on stdout. Needs CAP_NET_RAW.
 */
#include "common.h"
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <sys/uio.h>

static void usage(void)
{
    fprintf(stderr, "usage: tapblast -i IFNAME [-s SIZE] [-d SECONDS] [-r PPS] [-k BATCH]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *ifname = NULL;
    long size = 64, batch = 32;
    double seconds = 3, rate = 0;
    uint8_t smac[6] = {0x02, 0, 0, 0, 0, 0x01};
    uint8_t dmac[6] = {0x02, 0, 0, 0, 0, 0x02};
    int c;

    while ((c = getopt(argc, argv, "i:s:d:r:k:")) != -1) {
        switch (c) {
        case 'i': ifname = optarg; break;
        case 's': size = atol(optarg); break;
        case 'd': seconds = atof(optarg); break;
        case 'r': rate = atof(optarg); break;
        case 'k': batch = atol(optarg); break;
        default: usage();
        }
    }
    if (!ifname || size < UB_HDR_LEN || size > 9000 || seconds <= 0 || batch < 1 || batch > 1024)
        usage();

    int fd = socket(AF_PACKET, SOCK_RAW, 0);
    if (fd < 0) {
        perror("tapblast: socket(AF_PACKET)");
        return 1;
    }
    struct sockaddr_ll sll;
    memset(&sll, 0, sizeof(sll));
    sll.sll_family = AF_PACKET;
    sll.sll_ifindex = (int)if_nametoindex(ifname);
    if (!sll.sll_ifindex) {
        fprintf(stderr, "tapblast: no interface %s\n", ifname);
        return 1;
    }
    if (bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
        perror("tapblast: bind");
        return 1;
    }

    uint64_t count = rate > 0 ? (uint64_t)(rate * seconds + 0.5) : 0;
    uint8_t *bufs = malloc((size_t)batch * (size_t)size);
    struct mmsghdr *msgs = calloc((size_t)batch, sizeof(*msgs));
    struct iovec *iov = calloc((size_t)batch, sizeof(*iov));
    for (long i = 0; i < batch; i++) {
        build_frame(bufs + i * size, (size_t)size, dmac, smac, count);
        iov[i].iov_base = bufs + i * size;
        iov[i].iov_len = (size_t)size;
        msgs[i].msg_hdr.msg_iov = &iov[i];
        msgs[i].msg_hdr.msg_iovlen = 1;
    }

    uint64_t sent = 0, errors = 0, seq = 0;
    uint64_t t0 = now_ns();
    uint64_t deadline = t0 + (uint64_t)(seconds * 1e9);
    for (;;) {
        uint64_t now = now_ns();
        if (now >= deadline || (count && seq >= count))
            break;
        uint64_t want = (uint64_t)batch;
        if (rate > 0) {
            uint64_t due = (uint64_t)((double)(now - t0) * 1e-9 * rate) + 1;
            if (due > count)
                due = count;
            if (due <= seq) {
                struct timespec ts = {0, 100000}; /* 100 µs tick, as udpblast paces */
                nanosleep(&ts, NULL);
                continue;
            }
            want = due - seq < want ? due - seq : want;
        }
        uint64_t ts = now_ns();
        for (unsigned i = 0; i < want; i++) {
            put_u64(bufs + i * size + OFF_SEQ, seq + i);
            put_u64(bufs + i * size + OFF_TS, ts);
        }
        int r = sendmmsg(fd, msgs, (unsigned)want, 0);
        if (r <= 0) {
            /* a frame the kernel refused keeps its sequence number for the retry */
            if (++errors > 1000000) {
                fprintf(stderr, "tapblast: too many send errors, last: %s\n", strerror(errno));
                break;
            }
            continue;
        }
        sent += (uint64_t)r;
        seq += (uint64_t)r;
    }
    double el = (double)(now_ns() - t0) / 1e9;
    printf("tapblast sent=%llu size=%ld elapsed_s=%.3f pps=%.0f rate=%.0f batch=%ld errors=%llu\n", (unsigned long long)sent, size, el,
           sent / el, rate, batch, (unsigned long long)errors);
    return 0;
}
