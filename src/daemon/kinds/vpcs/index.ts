import { findExecutable } from '../../../util/which.js';
import { computeKind } from '../../compute/node-types.js';
import { VpcsNode, type VpcsShared } from './vpcs-node.js';
import { checkStartupScript } from './script-commands.js';
import { ethernetPort } from '../../controller/node-ports.js';
import type { TemplateSpec } from '../../controller/template-types.js';
import { ConflictError } from '../../errors.js';
import type { DaemonSettings } from '../../settings.js';
import type { NodeKind } from '../kind.js';
import { VPCS_CREATE_SCHEMA, VPCS_UPDATE_SCHEMA } from './schemas.js';

const TEMPLATE: TemplateSpec = {
  category: 'guest',
  default_name_format: 'PC{0}',
  symbol: ':/symbols/vpcs_guest.svg',
  fields: {
    base_script_file: { type: 'string', minLength: 1, default: 'vpcs_base_config.txt' },
    console_type: { enum: ['telnet', 'none'], default: 'telnet' },
    console_auto_start: { type: 'boolean', default: false },
  },
  builtin: { name: 'VPCS', properties: { base_script_file: 'vpcs_base_config.txt' } },
};

/**
 * VPCS MACs are 00:50:79:66:68:XX; the controller picks XX unique in the project, whichever compute
 * runs each VPCS (also for a node restored without one: portable archives leave it out).
 */
function freeVpcsMac(properties: Record<string, unknown>, others: Record<string, unknown>[]): void {
  if (properties.mac_address !== undefined && properties.mac_address !== null) return;
  const used = new Set(others.map((p) => String(p.mac_address ?? '').toLowerCase()));
  for (let b = 0; b < 256; b++) {
    const mac = `00:50:79:66:68:${b.toString(16).padStart(2, '0')}`;
    if (!used.has(mac)) return void (properties.mac_address = mac);
  }
  throw new ConflictError('No VPCS MAC address left in this project (256 VPCS)');
}

/** How VPCS nodes are confined; EMUCTL_VPCS_CONFINE_SHIM names another shim (tests). */
function vpcsConfinement(settings: DaemonSettings, env: NodeJS.ProcessEnv): VpcsShared['confinement'] {
  return settings.vpcsUnconfined ? 'unconfined' : { shim: env.EMUCTL_VPCS_CONFINE_SHIM || undefined };
}

/** GNS3's Virtual PC: the real `vpcs` binary, relayed through the dataplane. */
export const VPCS_KIND: NodeKind = {
  type: 'vpcs',
  controller: {
    alwaysRunning: false,
    ports: () => [ethernetPort('Ethernet0', 0, 0)],
    prepare: freeVpcsMac,
    // GNS3's VPCS schema refuses a mac_address.
    emuctlOnlyProperties: ['mac_address'],
    checkProperties: (p) => void (typeof p.startup_script === 'string' && checkStartupScript(p.startup_script)),
  },
  template: TEMPLATE,
  compute: ({ settings, env, registry, log }) => {
    const shared: VpcsShared = { registry, binary: env.EMUCTL_VPCS_BINARY || undefined, env, confinement: vpcsConfinement(settings, env) };
    if (settings.vpcsUnconfined) log.warn('vpcs_unconfined is on: VPCS starts without its confinement, so anyone who reaches a VPCS console (it listens on every address) runs host commands as this user with `!`');
    return computeKind({
      createSchema: VPCS_CREATE_SCHEMA,
      updateSchema: VPCS_UPDATE_SCHEMA,
      create: (body, ctx, opts) => VpcsNode.create(body, ctx, shared, opts),
      available: () => findExecutable(shared.binary ?? 'vpcs', shared.env) !== undefined,
      startAnswersNode: true,
    });
  },
};
