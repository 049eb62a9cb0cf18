import { existsSync } from 'node:fs';
import { runHostTool } from '../../compute/host-access.js';
import { NAT_TAP_PREFIX } from '../../compute/host-interface-policy.js';
import { nodeIdOr } from '../../compute/nodes/dataplane-node.js';
import type { NodeContext } from '../../compute/node-context.js';
import type { HostNioSpec } from '../../dataplane/types.js';
import { ConflictError } from '../../errors.js';
import type { FromSchema } from '../../schemas/validation.js';
import { HostPortsNode, type HostPort } from '../../compute/nodes/host-ports-node.js';
import type { NatHost } from './nat-host.js';
import type { NAT_CREATE_SCHEMA, NAT_UPDATE_SCHEMA } from './schemas.js';

type NatCreate = FromSchema<typeof NAT_CREATE_SCHEMA>;
type NatUpdate = FromSchema<typeof NAT_UPDATE_SCHEMA>;

/** The TAP of a NAT node's port: `ent` + the node id's first 8 hex digits + the port (14 characters at most). */
export function natTapName(nodeId: string, port: number): string {
  return `${NAT_TAP_PREFIX}${nodeId.replace(/-/g, '').slice(0, 8)}${port}`;
}

/**
 * GNS3's NAT node without libvirt: one port, `nat0`, whose host side is a TAP of its own joined to
 * the daemon's NAT bridge (shared by every NAT node of the daemon, see NatHost).
 */
export class NatNode extends HostPortsNode {
  readonly nodeType = 'nat';

  private constructor(id: string, name: string, ctx: NodeContext, private readonly host: NatHost) {
    super(id, name, ctx, [{ name: 'nat0', port_number: 0, type: 'tap', interface: natTapName(id, 0) }]);
  }

  static async create(body: NatCreate, ctx: NodeContext, host: NatHost): Promise<NatNode> {
    const missing = host.missing();
    if (missing) throw new ConflictError(missing);
    const node = new NatNode(nodeIdOr(body.node_id), body.name, ctx, host);
    await node.setUp();
    return node;
  }

  update(body: NatUpdate): Promise<void> {
    return this.lock.run(async () => {
      if (body.name !== undefined) this.name = body.name;
    });
  }

  protected override acquireHost(): Promise<void> {
    return this.host.acquire();
  }

  protected override releaseHost(): Promise<void> {
    return this.host.release();
  }

  protected override hostNio(port: HostPort, opts: { existing?: boolean } = {}): HostNioSpec {
    // The dataplane attaches to an existing TAP: one that is not ours must not be taken over.
    if (!opts.existing && existsSync(`/sys/class/net/${port.interface}`)) throw new ConflictError(`cannot make the NAT node's TAP ${port.interface}: an interface of that name exists`);
    return { kind: 'tap', ifname: port.interface };
  }

  protected override async afterAttach(_port: HostPort, nio: HostNioSpec): Promise<void> {
    await runHostTool('ip', ['link', 'set', 'dev', nio.ifname, 'master', this.host.bridge]);
  }

  toJSON(): Record<string, unknown> {
    return {
      ...this.identityJSON(),
      // As GNS3 reports it: the port and the host interface NAT goes through.
      ports_mapping: [{ name: 'nat0', port_number: 0, type: 'ethernet', interface: this.host.bridge }],
      console: null,
      console_type: 'none',
    };
  }
}
