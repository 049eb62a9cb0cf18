/**
 * A classic-BPF interpreter (the instruction set of libpcap's bpf_filter):
 * runs the programs tcpdump compiles, on raw Ethernet frames in the worker.
 * Registers and memory words are unsigned 32-bit; a load past the end of the
 * frame or a division by zero rejects the frame, as in the kernel.
 */
import type { BpfProgram } from './bpf-compile.js';

const MEMWORDS = 16;
const mem = new Uint32Array(MEMWORDS);

// Opcodes by class (code = class | size | mode, or class | op | source).
const LD_W_ABS = 0x20, LD_H_ABS = 0x28, LD_B_ABS = 0x30;
const LD_W_IND = 0x40, LD_H_IND = 0x48, LD_B_IND = 0x50;
const LD_IMM = 0x00, LD_MEM = 0x60, LD_W_LEN = 0x80;
const LDX_IMM = 0x01, LDX_MEM = 0x61, LDX_W_LEN = 0x81, LDX_B_MSH = 0xb1;
const ST = 0x02, STX = 0x03;
const ALU = 0x04, ALU_X = 0x08;
const ADD = 0x00, SUB = 0x10, MUL = 0x20, DIV = 0x30, OR = 0x40, AND = 0x50, LSH = 0x60, RSH = 0x70, NEG = 0x80, MOD = 0x90, XOR = 0xa0;
const JA = 0x05, JEQ = 0x15, JGT = 0x25, JGE = 0x35, JSET = 0x45, JMP_X = 0x08;
const RET_K = 0x06, RET_X = 0x0e, RET_A = 0x16;
const TAX = 0x07, TXA = 0x87;

const ALU_OPS = new Set([ADD, SUB, MUL, DIV, OR, AND, LSH, RSH, MOD, XOR]);
const JUMPS = new Set([JEQ, JGT, JGE, JSET]);
const SIMPLE = new Set([LD_W_ABS, LD_H_ABS, LD_B_ABS, LD_W_IND, LD_H_IND, LD_B_IND, LD_IMM, LD_W_LEN,
  LDX_IMM, LDX_W_LEN, LDX_B_MSH, RET_K, RET_X, RET_A, TAX, TXA, ALU | NEG]);

/** Checks a program as libpcap's bpf_validate does: known opcodes, forward in-range jumps, memory indexes, ends in a return. Returns an error text or null. */
export function validateBpf(p: BpfProgram): string | null {
  const n = p.length / 4;
  if (!Number.isInteger(n) || n < 1) return 'empty program';
  for (let pc = 0; pc < n; pc++) {
    const code = p[pc * 4], jt = p[pc * 4 + 1], jf = p[pc * 4 + 2], k = p[pc * 4 + 3];
    if (SIMPLE.has(code)) continue;
    if (code === LD_MEM || code === LDX_MEM || code === ST || code === STX) {
      if (k >= MEMWORDS) return `instruction ${pc}: memory index ${k} out of range`;
    } else if (code <= 0xff && (code & 0x07) === ALU && ALU_OPS.has(code & 0xf0)) {
      if ((code & ALU_X) === 0 && (code & 0xf0) === DIV && k === 0) return `instruction ${pc}: division by zero`;
      if ((code & ALU_X) === 0 && (code & 0xf0) === MOD && k === 0) return `instruction ${pc}: modulo by zero`;
    } else if (code === JA) {
      if (pc + 1 + k >= n) return `instruction ${pc}: jump out of range`;
    } else if (JUMPS.has(code & ~JMP_X)) {
      if (pc + 1 + jt >= n || pc + 1 + jf >= n) return `instruction ${pc}: jump out of range`;
    } else {
      return `instruction ${pc}: unknown opcode ${code}`;
    }
  }
  const last = p[(n - 1) * 4];
  if (last !== RET_K && last !== RET_A && last !== RET_X) return 'program does not end with a return';
  return null;
}

/** Runs a validated program on frame `b`; returns the program's verdict (0 = no match). */
export function runBpf(p: BpfProgram, b: Uint8Array): number {
  const len = b.length;
  let a = 0, x = 0, pc = 0;
  mem.fill(0);
  for (;;) {
    const i = pc * 4;
    const k = p[i + 3];
    pc++;
    switch (p[i]) {
      case LD_W_ABS: if (k > len - 4) return 0; a = ((b[k] << 24) | (b[k + 1] << 16) | (b[k + 2] << 8) | b[k + 3]) >>> 0; break;
      case LD_H_ABS: if (k > len - 2) return 0; a = (b[k] << 8) | b[k + 1]; break;
      case LD_B_ABS: if (k >= len) return 0; a = b[k]; break;
      case LD_W_IND: { const o = x + k; if (o > len - 4) return 0; a = ((b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]) >>> 0; break; }
      case LD_H_IND: { const o = x + k; if (o > len - 2) return 0; a = (b[o] << 8) | b[o + 1]; break; }
      case LD_B_IND: { const o = x + k; if (o >= len) return 0; a = b[o]; break; }
      case LD_IMM: a = k; break;
      case LD_MEM: a = mem[k]; break;
      case LD_W_LEN: a = len; break;
      case LDX_IMM: x = k; break;
      case LDX_MEM: x = mem[k]; break;
      case LDX_W_LEN: x = len; break;
      case LDX_B_MSH: if (k >= len) return 0; x = (b[k] & 0x0f) << 2; break;
      case ST: mem[k] = a; break;
      case STX: mem[k] = x; break;
      case RET_K: return k;
      case RET_A: return a;
      case RET_X: return x;
      case TAX: x = a; break;
      case TXA: a = x; break;
      case JA: pc += k; break;
      case JEQ: pc += a === k ? p[i + 1] : p[i + 2]; break;
      case JGT: pc += a > k ? p[i + 1] : p[i + 2]; break;
      case JGE: pc += a >= k ? p[i + 1] : p[i + 2]; break;
      case JSET: pc += (a & k) !== 0 ? p[i + 1] : p[i + 2]; break;
      case JEQ | JMP_X: pc += a === x ? p[i + 1] : p[i + 2]; break;
      case JGT | JMP_X: pc += a > x ? p[i + 1] : p[i + 2]; break;
      case JGE | JMP_X: pc += a >= x ? p[i + 1] : p[i + 2]; break;
      case JSET | JMP_X: pc += (a & x) !== 0 ? p[i + 1] : p[i + 2]; break;
      default: {
        const r = alu(p[i], a, (p[i] & ALU_X) !== 0 ? x : k);
        if (r < 0) return 0;
        a = r;
      }
    }
  }
}

/** One ALU instruction; -1 for a division by zero (or an opcode validateBpf would have refused). */
function alu(code: number, a: number, v: number): number {
  switch (code & 0xf0) {
    case ADD: return (a + v) >>> 0;
    case SUB: return (a - v) >>> 0;
    case MUL: return Math.imul(a, v) >>> 0;
    case DIV: return v === 0 ? -1 : Math.floor(a / v);
    case MOD: return v === 0 ? -1 : a % v;
    case OR: return (a | v) >>> 0;
    case AND: return (a & v) >>> 0;
    case XOR: return (a ^ v) >>> 0;
    case LSH: return v < 32 ? (a << v) >>> 0 : 0;
    case RSH: return v < 32 ? a >>> v : 0;
    case NEG: return (-a) >>> 0;
    default: return -1;
  }
}
