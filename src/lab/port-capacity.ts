import type { ApiClient } from '../client/api.js';
import { apiPath } from '../client/api.js';
import { OperationError } from '../client/errors.js';
import type { Plan } from './plan.js';
import type { LabState } from './state.js';

/** Console ports a new node takes on its compute: a docker node two (console and aux), VPCS and QEMU one. */
const CONSOLE_PORTS: Readonly<Record<string, number>> = { docker: 2, vpcs: 1, qemu: 1 };

/** What GET /v2/computes/{id}/ports answers (GNS3 2.2's controller route, which emuctl has too). */
interface ComputePorts {
  console_port_range?: [number, number];
  console_ports?: number[];
  udp_port_range?: [number, number];
  udp_ports?: number[];
}

/** Ports the plan's new nodes and links need, per compute id: a lower bound (each link end one UDP port). */
export function portsNeeded(plan: Plan, state: LabState): Map<string, { console: number; udp: number }> {
  const need = new Map<string, { console: number; udp: number }>();
  const of = (computeId: string) => need.get(computeId) ?? need.set(computeId, { console: 0, udp: 0 }).get(computeId)!;
  const computeOf = new Map(state.nodes.map((n) => [n.name, n.compute_id]));
  for (const step of plan.steps) {
    if (step.kind !== 'create-node') continue;
    computeOf.set(step.spec.name, step.computeId);
    of(step.computeId).console += (step.spec.type && CONSOLE_PORTS[step.spec.type]) || 0;
  }
  for (const step of plan.steps) {
    if (step.kind !== 'create-link') continue;
    for (const end of step.spec.ends) {
      const computeId = computeOf.get(end.node);
      if (computeId) of(computeId).udp++;
    }
  }
  return need;
}

/**
 * Checks, before anything is created, that each compute's console and UDP port ranges have room for
 * the plan's new nodes and links; a range that is short is one error naming the setting to widen.
 * A compute that does not tell its ports (an older server) is not checked: its own 409 remains.
 */
export async function checkPortCapacity(api: ApiClient, plan: Plan, state: LabState): Promise<void> {
  const problems: string[] = [];
  for (const [computeId, need] of portsNeeded(plan, state)) {
    const ports = await api.get<ComputePorts>(apiPath('computes', computeId, 'ports')).catch(() => undefined);
    if (!ports) continue;
    const name = state.computes.find((c) => c.compute_id === computeId)?.name ?? computeId;
    const short = (what: string, setting: string, range: [number, number] | undefined, used: number[] | undefined, wanted: number) => {
      if (!range || !wanted) return;
      const free = range[1] - range[0] + 1 - (used?.length ?? 0);
      if (free < wanted) problems.push(`${what} ports: the lab needs ${wanted}, compute ${name} has ${free} free in ${range[0]}-${range[1]} (widen its ${setting})`);
    };
    short('console', 'console_port_range setting (EMUCTL_CONSOLE_PORT_RANGE)', ports.console_port_range, ports.console_ports, need.console);
    short('UDP', 'udp_port_range setting (EMUCTL_UDP_PORT_RANGE)', ports.udp_port_range, ports.udp_ports, need.udp);
  }
  if (problems.length) throw new OperationError(`not enough ports, nothing was created: ${problems.join('; ')}`, 409);
}
