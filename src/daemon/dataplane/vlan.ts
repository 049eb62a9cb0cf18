import { InvalidError } from '../errors.js';
import type { DataplaneNodeKind, SwitchPortConfig } from './types.js';

export const ETH_HEADER = 14;
export const TPID_8021Q = 0x8100;
/** Outer-tag ethertypes dynamips accepts on a trunk and offers for qinq: 802.1Q, 802.1ad, and the two pre-standard QinQ ones. */
export const QINQ_ETHERTYPES: readonly number[] = [0x8100, 0x88a8, 0x9100, 0x9200];

/** Port types as small integers, for the frame path. */
export const ACCESS = 0, DOT1Q = 1, QINQ = 2;
export type PortMode = typeof ACCESS | typeof DOT1Q | typeof QINQ;

/** A port's VLAN settings as the frame path uses them. */
export interface VlanSettings {
  mode: PortMode;
  vlan: number;
  /** qinq: ethertype of the outer tag pushed on ingress. */
  tpid: number;
}

/** True for an ethertype that announces a VLAN tag (bytes 12-13 of a frame). */
export function isTagTpid(ethertype: number): boolean {
  return ethertype === 0x8100 || ethertype === 0x88a8 || ethertype === 0x9100 || ethertype === 0x9200;
}

/** A copy of `frame` with a tag (tpid, vid) inserted after the MAC addresses. */
export function pushTag(frame: Buffer, tpid: number, vid: number): Buffer {
  const out = Buffer.allocUnsafe(frame.length + 4);
  frame.copy(out, 0, 0, 12);
  out[12] = tpid >> 8;
  out[13] = tpid & 0xff;
  out[14] = (vid >> 8) & 0x0f;
  out[15] = vid & 0xff;
  frame.copy(out, 16, 12);
  return out;
}

/** A copy of `frame` without its outermost tag (bytes 12-15). */
export function popTag(frame: Buffer): Buffer {
  const out = Buffer.allocUnsafe(frame.length - 4);
  frame.copy(out, 0, 0, 12);
  frame.copy(out, 12, 16);
  return out;
}

/** Validates a node's port list and turns it into per-port VLAN settings (hub: VLANs ignored). */
export function parsePortConfigs(kind: DataplaneNodeKind, configs: readonly SwitchPortConfig[]): Map<number, VlanSettings> {
  if (!Array.isArray(configs)) throw new InvalidError('ports must be a list');
  const out = new Map<number, VlanSettings>();
  for (const c of configs) {
    if (!c || !Number.isInteger(c.port) || c.port < 0) throw new InvalidError(`port number must be a non-negative integer (got ${c?.port})`);
    if (out.has(c.port)) throw new InvalidError(`port ${c.port} is listed twice`);
    if (kind === 'hub') {
      out.set(c.port, { mode: ACCESS, vlan: 1, tpid: TPID_8021Q });
      continue;
    }
    if (!Number.isInteger(c.vlan) || c.vlan < 1 || c.vlan > 4094) throw new InvalidError(`port ${c.port}: vlan must be 1-4094 (got ${c.vlan})`);
    const tpid = c.ethertype ?? TPID_8021Q;
    switch (c.type) {
      case 'access':
        out.set(c.port, { mode: ACCESS, vlan: c.vlan, tpid: TPID_8021Q });
        break;
      case 'dot1q':
        out.set(c.port, { mode: DOT1Q, vlan: c.vlan, tpid: TPID_8021Q });
        break;
      case 'qinq':
        if (!QINQ_ETHERTYPES.includes(tpid)) {
          throw new InvalidError(`port ${c.port}: qinq ethertype must be one of 0x8100, 0x88A8, 0x9100, 0x9200 (got 0x${tpid.toString(16)})`);
        }
        out.set(c.port, { mode: QINQ, vlan: c.vlan, tpid });
        break;
      default:
        throw new InvalidError(`port ${c.port}: type must be access, dot1q or qinq (got ${String(c.type)})`);
    }
  }
  return out;
}
