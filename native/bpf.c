/*
 * Classic-BPF interpreter (libpcap's bpf_filter instruction set), for the
 * programs `tcpdump -ddd` compiles. The TypeScript side validates each
 * program (src/daemon/dataplane/bpf-vm.ts: validateBpf) before it gets here;
 * the pc is still bounds-checked. A load past the end of the frame or a
 * division by zero rejects the frame (returns 0), as in the kernel.
 */
#include "dp.h"

#include <string.h>

enum {
  LD_W_ABS = 0x20, LD_H_ABS = 0x28, LD_B_ABS = 0x30, LD_W_IND = 0x40, LD_H_IND = 0x48, LD_B_IND = 0x50,
  LD_IMM = 0x00, LD_MEM = 0x60, LD_W_LEN = 0x80, LDX_IMM = 0x01, LDX_MEM = 0x61, LDX_W_LEN = 0x81, LDX_B_MSH = 0xb1,
  ST = 0x02, STX = 0x03, ALU_X = 0x08,
  ADD = 0x00, SUB = 0x10, MUL = 0x20, DIV = 0x30, OR = 0x40, AND = 0x50, LSH = 0x60, RSH = 0x70, NEG = 0x80, MOD = 0x90, XOR = 0xa0,
  JA = 0x05, JEQ = 0x15, JGT = 0x25, JGE = 0x35, JSET = 0x45, JMP_X = 0x08,
  RET_K = 0x06, RET_X = 0x0e, RET_A = 0x16, TAX = 0x07, TXA = 0x87,
};

static inline uint32_t w32(const uint8_t *b) { return ((uint32_t)b[0] << 24) | ((uint32_t)b[1] << 16) | ((uint32_t)b[2] << 8) | b[3]; }
static inline uint32_t w16(const uint8_t *b) { return ((uint32_t)b[0] << 8) | b[1]; }

uint32_t dp_bpf_run(const uint32_t *p, uint32_t n, const uint8_t *b, uint32_t len) {
  uint32_t a = 0, x = 0, pc = 0, mem[16];
  memset(mem, 0, sizeof mem);
  for (;;) {
    if (pc >= n) return 0;
    const uint32_t *i = p + (size_t)pc * 4;
    uint32_t code = i[0], k = i[3];
    uint64_t o;
    pc++;
    switch (code) {
    case LD_W_ABS: if ((uint64_t)k + 4 > len) return 0; a = w32(b + k); break;
    case LD_H_ABS: if ((uint64_t)k + 2 > len) return 0; a = w16(b + k); break;
    case LD_B_ABS: if (k >= len) return 0; a = b[k]; break;
    case LD_W_IND: o = (uint64_t)x + k; if (o + 4 > len) return 0; a = w32(b + o); break;
    case LD_H_IND: o = (uint64_t)x + k; if (o + 2 > len) return 0; a = w16(b + o); break;
    case LD_B_IND: o = (uint64_t)x + k; if (o >= len) return 0; a = b[o]; break;
    case LD_IMM: a = k; break;
    case LD_MEM: a = mem[k & 15]; break;
    case LD_W_LEN: a = len; break;
    case LDX_IMM: x = k; break;
    case LDX_MEM: x = mem[k & 15]; break;
    case LDX_W_LEN: x = len; break;
    case LDX_B_MSH: if (k >= len) return 0; x = (uint32_t)(b[k] & 0x0f) << 2; break;
    case ST: mem[k & 15] = a; break;
    case STX: mem[k & 15] = x; break;
    case RET_K: return k;
    case RET_A: return a;
    case RET_X: return x;
    case TAX: x = a; break;
    case TXA: a = x; break;
    case JA: pc += k; break;
    case JEQ: pc += a == k ? i[1] : i[2]; break;
    case JGT: pc += a > k ? i[1] : i[2]; break;
    case JGE: pc += a >= k ? i[1] : i[2]; break;
    case JSET: pc += (a & k) ? i[1] : i[2]; break;
    case JEQ | JMP_X: pc += a == x ? i[1] : i[2]; break;
    case JGT | JMP_X: pc += a > x ? i[1] : i[2]; break;
    case JGE | JMP_X: pc += a >= x ? i[1] : i[2]; break;
    case JSET | JMP_X: pc += (a & x) ? i[1] : i[2]; break;
    default: {
      if ((code & 0x07) != 0x04) return 0;
      uint32_t v = (code & ALU_X) ? x : k;
      switch (code & 0xf0) {
      case ADD: a += v; break;
      case SUB: a -= v; break;
      case MUL: a *= v; break;
      case DIV: if (!v) return 0; a /= v; break;
      case MOD: if (!v) return 0; a %= v; break;
      case OR: a |= v; break;
      case AND: a &= v; break;
      case XOR: a ^= v; break;
      case LSH: a = v < 32 ? a << v : 0; break;
      case RSH: a = v < 32 ? a >> v : 0; break;
      case NEG: a = (uint32_t)(-(int64_t)a); break;
      default: return 0;
      }
    }
    }
  }
}
