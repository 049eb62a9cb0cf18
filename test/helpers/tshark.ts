import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One ICMP packet as tshark decodes it. */
export interface IcmpPacket {
  src: string;
  dst: string;
  type: number;
}

/** Reads a pcap with tshark and returns its ICMP packets (tshark must open the file without error). */
export async function icmpPackets(file: string): Promise<IcmpPacket[]> {
  const { stdout } = await run('tshark', ['-r', file, '-Y', 'icmp', '-T', 'fields', '-e', 'ip.src', '-e', 'ip.dst', '-e', 'icmp.type'], { timeout: 30_000 });
  return stdout.split('\n').filter(Boolean).map((line) => {
    const [src, dst, type] = line.split('\t');
    return { src, dst, type: Number(type) };
  });
}

/** Counts the frames tshark reads from a pcap, with an optional display filter. */
export async function frameCount(file: string, filter?: string): Promise<number> {
  const { stdout } = await run('tshark', ['-r', file, ...(filter ? ['-Y', filter] : []), '-T', 'fields', '-e', 'frame.number'], { timeout: 30_000 });
  return stdout.split('\n').filter(Boolean).length;
}
