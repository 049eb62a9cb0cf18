import { randomUUID } from 'node:crypto';

type Api = (method: string, path: string, body?: unknown) => Promise<any>;

/**
 * One Ethernet switch made through the compute API, in a compute project of its own (`name`):
 * port 0 takes frames from the sender's UDP port, port 1 sends them to the sink's.
 * Returns the daemon's UDP ports for those two ends.
 */
export async function buildSwitchHop(api: Api, name: string, senderPort: number, sinkPort: number): Promise<{ inPort: number; outPort: number }> {
  const projectId = randomUUID();
  const base = `/v2/compute/projects/${projectId}`;
  await api('POST', '/v2/compute/projects', { project_id: projectId, name });
  const sw = await api('POST', `${base}/ethernet_switch/nodes`, { name: 'SW1' });
  const nio = `${base}/ethernet_switch/nodes/${sw.node_id}/adapters/0/ports`;
  const inPort = (await api('POST', `${base}/ports/udp`, {})).udp_port as number;
  const outPort = (await api('POST', `${base}/ports/udp`, {})).udp_port as number;
  await api('POST', `${nio}/0/nio`, { type: 'nio_udp', lport: inPort, rhost: '127.0.0.1', rport: senderPort });
  await api('POST', `${nio}/1/nio`, { type: 'nio_udp', lport: outPort, rhost: '127.0.0.1', rport: sinkPort });
  return { inPort, outPort };
}
