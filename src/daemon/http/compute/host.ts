import type { Router } from 'express';
import { freemem, loadavg, networkInterfaces, totalmem } from 'node:os';
import type { LocalCompute } from '../../compute/local-compute.js';
import { NotFoundError } from '../../errors.js';
import { hostUsage } from '../../host-usage.js';
import { route } from '../route.js';

export const CAPABILITIES_ROUTE = '/v2/compute/capabilities';

export interface HostRouteDeps {
  compute: LocalCompute;
  /** The GNS3 API version reported (`2.2.N`) and emuctl's own. */
  gns3Version: string;
  version: string;
  capabilities: () => Record<string, unknown>;
  udpPortRange: [number, number];
  consolePortRange: [number, number];
}

/** Compute-level routes: version, capabilities, the host's interfaces and ports. */
export function computeHostRoutes(router: Router, deps: HostRouteDeps): void {
  const { compute } = deps;
  route(router, { method: 'get', template: '/v2/compute/version' }, () => ({ version: deps.gns3Version, local: false, emuctl_version: deps.version }));
  route(router, { method: 'get', template: CAPABILITIES_ROUTE }, () => deps.capabilities());
  route(router, { method: 'get', template: '/v2/compute/network/interfaces' }, () => hostInterfaces().filter((i) => compute.hostInterfaces.allows(i.name as string)));
  route(router, { method: 'get', template: '/v2/compute/statistics' }, () => statistics());
  route(router, { method: 'get', template: '/v2/compute/{emulator}/images' }, ({ params }) => {
    if (!compute.nodeTypes.find(params.emulator)) throw new NotFoundError(`Emulator ${params.emulator} doesn't exist on this compute`);
    return [];
  });
  route(router, { method: 'get', template: '/v2/compute/network/ports' }, () => ({
    console_port_range: deps.consolePortRange,
    console_ports: compute.resources.consolePorts.used(),
    udp_port_range: deps.udpPortRange,
    udp_ports: compute.resources.udpPorts.used(),
  }));
}

/** The host's interfaces as GNS3 lists them: name, ip, netmask, mac, type (the route offers only those a cloud may use). */
function hostInterfaces(): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const [name, addresses] of Object.entries(networkInterfaces())) {
    const v4 = addresses?.find((a) => a.family === 'IPv4');
    const any = v4 ?? addresses?.[0];
    out.push({
      id: name,
      name,
      ip_address: v4?.address ?? '',
      netmask: v4?.netmask ?? '',
      mac_address: any?.mac ?? '',
      type: 'ethernet',
      special: name === 'lo' || !!any?.internal,
    });
  }
  return out;
}

/** Host statistics as GNS3's /v2/compute/statistics gives them. */
function statistics(): Record<string, unknown> {
  const total = totalmem();
  const free = freemem();
  return {
    memory_total: total,
    memory_free: free,
    memory_used: total - free,
    ...hostUsage(),
    load_average_percent: loadavg().map((l) => Math.round(l * 1000) / 10),
  };
}
