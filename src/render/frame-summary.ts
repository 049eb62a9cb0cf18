import { recordIsoTime, type PcapRecord } from '../client/pcap-stream.js';
import { decodeFrame, type DecodedFrame } from './frame-decode.js';
import { PLAIN, type Style } from './style.js';

/** One frame as `capture watch --json` prints it (one object per line). */
export interface FrameJson {
  number: number;
  /** ISO 8601, UTC, with the capture's precision. */
  time: string;
  /** Seconds since the epoch, as a number. */
  timestamp: number;
  length: number;
  captured_length: number;
  protocol: string;
  src: string;
  dst: string;
  info: string;
  eth_src?: string;
  eth_dst?: string;
  vlans: number[];
  truncated: boolean;
  [field: string]: unknown;
}

/** HH:MM:SS.ffffff in local time, as tcpdump prints it (nanosecond captures keep 9 digits). */
export function clockTime(record: PcapRecord, nanoseconds = false): string {
  const date = new Date(record.seconds * 1000);
  const hms = [date.getHours(), date.getMinutes(), date.getSeconds()].map((n) => String(n).padStart(2, '0')).join(':');
  const frac = nanoseconds ? String(record.nanos).padStart(9, '0') : String(Math.floor(record.nanos / 1000)).padStart(6, '0');
  return `${hms}.${frac}`;
}

/** `[vlan 100, 10]`-style note for tagged frames, outer tag first. */
function vlanNote(frame: DecodedFrame): string {
  return frame.vlans.length ? ` (vlan ${frame.vlans.join(', ')})` : '';
}

/** One tcpdump-like line: `12:00:01.000123 10.0.0.1 > 10.0.0.2 ICMP echo request, id 1, seq 1, length 64`. */
export function frameLine(record: PcapRecord, linkType: number, options: { nanoseconds?: boolean; style?: Style } = {}): string {
  const style = options.style ?? PLAIN;
  const frame = decodeFrame(record.data, linkType);
  const ends = frame.src || frame.dst ? ` ${frame.src} > ${frame.dst}` : '';
  const info = frame.info ? ` ${frame.info}` : '';
  return `${style.dim(clockTime(record, options.nanoseconds))}${ends} ${style.bold(frame.protocol)}${info}${vlanNote(frame)}`;
}

/** The frame as a JSON object (frames numbered from 1 by the caller). */
export function frameJson(record: PcapRecord, linkType: number, number: number, nanoseconds = false): FrameJson {
  const frame = decodeFrame(record.data, linkType);
  return {
    number,
    time: recordIsoTime(record, nanoseconds),
    timestamp: record.seconds + record.nanos / 1e9,
    length: record.originalLength,
    captured_length: record.data.length,
    protocol: frame.protocol,
    src: frame.src,
    dst: frame.dst,
    info: frame.info,
    ...(frame.ethSrc === undefined ? {} : { eth_src: frame.ethSrc, eth_dst: frame.ethDst }),
    vlans: frame.vlans,
    truncated: frame.truncated || record.data.length < record.originalLength,
    ...frame.fields,
  };
}
