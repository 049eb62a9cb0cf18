// `lab wait FILE --ping all`: every pair of a generated lab's linux hosts, at the addresses the
// lab's addressing plan gave them.
import { UsageError } from '../client/errors.js';
import { prefixText } from './generated/ip.js';
import type { LabSpec } from './model.js';
import type { PingPair } from './wait.js';

/** The generated IPv4 address of each host (`device: linux`) of the lab, in file order. */
export function hostAddresses(spec: LabSpec): Map<string, string> {
  const out = new Map<string, string>();
  for (const node of spec.generated?.nodes ?? []) {
    if (node.role !== 'host') continue;
    const address = node.interfaces.map((i) => i.address[4]).find((a) => a !== undefined);
    if (address) out.set(node.name, prefixText(address).split('/')[0]!);
  }
  return out;
}

/** Every pair of hosts once (the earlier in the file pings the later: a reply proves both ways). */
export function allHostPairs(spec: LabSpec): { pairs: PingPair[]; addresses: Map<string, string> } {
  const addresses = hostAddresses(spec);
  const hosts = [...addresses.keys()];
  if (hosts.length < 2) throw new UsageError(`--ping all pings every pair of the lab's linux hosts (device: linux), and ${spec.file} has ${hosts.length === 0 ? 'none' : `only ${hosts[0]}`}`);
  const pairs: PingPair[] = [];
  for (let i = 0; i < hosts.length; i++) for (let j = i + 1; j < hosts.length; j++) pairs.push({ from: hosts[i]!, to: hosts[j]! });
  return { pairs, addresses };
}
