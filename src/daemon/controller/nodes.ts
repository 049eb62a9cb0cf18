import { randomUUID } from 'node:crypto';
import type { NodeAction } from '../compute/compute-api.js';
import { ConflictError, InvalidError, NotFoundError, UpstreamError } from '../errors.js';
import { STRICT_HOST_POLICY, type HostPolicy } from '../host-policy.js';
import { LOCAL_COMPUTE_ID, type ComputeRegistry } from './computes.js';
import type { ControllerEvents } from './events.js';
import type { Lab } from './lab.js';
import type { LinkManager } from './links.js';
import type { ManagementNetworks } from './management/networks.js';
import { ControllerNode, NODE_LAYOUT_DEFAULTS, type NodeLayout } from './node.js';
import { ControllerNodeTypes } from './node-types.js';
import { DEFAULT_SYMBOL, symbolSize } from './symbols.js';
import type { NODE_CREATE_SCHEMA, NODE_UPDATE_SCHEMA } from '../schemas/lab.js';
import type { NODE_DUPLICATE_SCHEMA } from '../schemas/project-extras.js';
import type { FromSchema } from '../schemas/validation.js';

/** Template fields the controller turns into something else: GNS3 sends a base script's content instead of its name. */
export const CONTROLLER_ONLY_PROPERTIES: readonly string[] = ['base_script_file', 'category'];

/** A node create body, as NODE_CREATE_SCHEMA accepts it. */
export type NodeCreate = FromSchema<typeof NODE_CREATE_SCHEMA>;
/** A node update body, as NODE_UPDATE_SCHEMA accepts it. */
export type NodeUpdate = FromSchema<typeof NODE_UPDATE_SCHEMA>;
/** Where a duplicate goes, as NODE_DUPLICATE_SCHEMA accepts it. */
export type NodeDuplicate = FromSchema<typeof NODE_DUPLICATE_SCHEMA>;

/** Creates, changes and runs the nodes of a lab on their computes; the lab coordinates each change. */
export class NodeManager {
  /** The node types this controller knows: the daemon's kinds. */
  readonly types: ControllerNodeTypes;

  constructor(private readonly deps: { computes: ComputeRegistry; events: ControllerEvents; links: LinkManager; policy?: HostPolicy; management?: ManagementNetworks; types?: ControllerNodeTypes }) {
    this.types = deps.types ?? new ControllerNodeTypes();
  }

  /**
   * Creates a node on its compute (default `local`) and records it in the project. A taken name
   * gets the next free one, as GNS3 does (`SW1` → `SW2`). The name and id are reserved at once, so
   * concurrent creates never share a name; the compute is called outside the lab's lock.
   */
  async create(lab: Lab, body: NodeCreate): Promise<ControllerNode> {
    this.types.of(body.node_type);
    this.checkProperties(body.node_type, body.compute_id ?? LOCAL_COMPUTE_ID, body.properties ?? {});
    const node = await lab.lock.run(async () => {
      const built = this.build(lab, { ...body, name: lab.freeName(body.name), node_id: body.node_id ?? randomUUID() });
      this.deps.management?.assign(lab, built);
      lab.reserveNode(built);
      return built;
    });
    try {
      await this.placeOnCompute(lab, node);
    } catch (err) {
      lab.abandonNode(node);
      throw err;
    }
    try {
      await lab.addNode(node);
    } catch (err) {
      await this.removeFromCompute(lab, node);
      throw err;
    }
    this.publish('node.created', lab, node);
    return node;
  }

  /** A node object from a create body or a topology entry, not yet on its compute. */
  build(lab: Lab, body: NodeCreate & { node_id: string }): ControllerNode {
    const computeId = body.compute_id ?? LOCAL_COMPUTE_ID;
    const compute = this.deps.computes.api(computeId);
    const layout = { ...NODE_LAYOUT_DEFAULTS } as Record<string, unknown>;
    for (const key of Object.keys(layout)) if ((body as unknown as Record<string, unknown>)[key] !== undefined) layout[key] = (body as unknown as Record<string, unknown>)[key];
    layout.symbol ??= this.types.apiSymbolOf(body.node_type) ?? DEFAULT_SYMBOL;
    Object.assign(layout, symbolSize(layout.symbol as string));
    layout.label = { ...defaultLabel(layout.height as number), ...(layout.label as Record<string, unknown> | null), text: body.name };
    const properties = { ...(body.properties ?? {}) };
    for (const key of CONTROLLER_ONLY_PROPERTIES) delete properties[key];
    if (body.console !== undefined && body.console !== null) properties.console = body.console;
    return new ControllerNode(body.node_id, lab.project.id, body.node_type, computeId, body.name, properties, layout as NodeLayout, body.console_type ?? this.types.find(body.node_type)?.defaultConsoleType ?? null, compute, this.deps.computes.hostOf(computeId), this.types.find(body.node_type));
  }

  /**
   * Creates the node on its compute (the compute's project first, once), after its type's own
   * preparation (a VPCS's MAC). A node restored from a topology (`restoring`) whose console port is
   * taken gets another one, as GNS3 does; a client that asks for a taken port gets the 409.
   */
  async placeOnCompute(lab: Lab, node: ControllerNode, { restoring = false } = {}): Promise<void> {
    // The local compute shares the project's directory, as GNS3 sends the path to its local compute.
    const path = node.computeId === LOCAL_COMPUTE_ID ? { path: lab.project.path } : {};
    await lab.readyOn(node.computeId, () => node.compute.createProject({ project_id: lab.project.id, name: lab.project.name, ...path }));
    node.rules?.prepare?.(node.properties, lab.otherNodeProperties(node));
    await this.deps.management?.ready(lab, node);
    try {
      node.absorb(await node.compute.createNode(lab.project.id, node.nodeType, node.computeBody(), { restoring }));
    } catch (err) {
      const taken = err instanceof ConflictError || (err instanceof UpstreamError && err.status === 409);
      if (!restoring || !taken || node.properties.console === undefined) throw err;
      delete node.properties.console;
      node.absorb(await node.compute.createNode(lab.project.id, node.nodeType, node.computeBody(), { restoring }));
    }
    node.onCompute = true;
  }

  /**
   * Renames, moves or changes properties; the compute gets the changes that are its business. A
   * taken name gets the next free one, as GNS3 does. If the write fails, the node is as it was.
   */
  async update(lab: Lab, node: ControllerNode, body: NodeUpdate): Promise<ControllerNode> {
    return node.lock.run(async () => {
      const before = { name: node.name, layout: structuredClone(node.layout), properties: structuredClone(node.properties), computeState: node.computeState };
      const name = body.name === undefined ? undefined : lab.freeName(body.name, node);
      const computeChange: Record<string, unknown> = { ...(body.properties ?? {}) };
      for (const key of CONTROLLER_ONLY_PROPERTIES) delete computeChange[key];
      this.checkProperties(node.nodeType, node.computeId, computeChange);
      if (name !== undefined && name !== node.name) computeChange.name = name;
      const claim = name !== undefined && name !== node.name ? lab.claimName(name) : undefined;
      try {
        if (Object.keys(computeChange).length > 0) {
          node.absorb(await node.compute.updateNode(lab.project.id, node.nodeType, node.id, computeChange));
        }
        if (name !== undefined) node.rename(name);
      } finally {
        claim?.();
      }
      for (const key of Object.keys(NODE_LAYOUT_DEFAULTS)) {
        const value = (body as Record<string, unknown>)[key];
        if (value !== undefined) (node.layout as Record<string, unknown>)[key] = value;
      }
      // GNS3 derives width and height from the symbol, whatever a client sends.
      Object.assign(node.layout, symbolSize(node.layout.symbol));
      if (body.label) node.layout.label = { ...body.label, text: node.name };
      try {
        await lab.save([node], () => Object.assign(node, before));
      } catch (err) {
        // The compute took the change: it gets the old values back, or its next report would bring the change back.
        if (Object.keys(computeChange).length > 0) {
          const revert = await node.compute.updateNode(lab.project.id, node.nodeType, node.id, { name: before.name, ...pick(before.properties, Object.keys(computeChange)) }).catch(() => undefined);
          if (revert) node.absorb(revert);
        }
        throw err;
      }
      this.publish('node.updated', lab, node);
      return node;
    });
  }

  /**
   * Duplicates a stopped node (GNS3's duplicate): same type, compute and properties under the next
   * free name, at (x, y, z); then the compute copies the node's files (a VPCS's startup script).
   */
  async duplicate(lab: Lab, node: ControllerNode, at: NodeDuplicate): Promise<ControllerNode> {
    if (node.status !== 'stopped' && !node.alwaysRunning) throw new ConflictError('Cannot duplicate node data while the node is running');
    // A docker node's aux port and container are its own, like the console port.
    const { mac_address: _mac, console: _console, aux: _aux, container_id: _container, mgmt_ipv4: _m4, mgmt_ipv6: _m6, ...properties } = node.properties;
    const copy = await this.create(lab, {
      ...node.layout,
      name: node.name,
      node_type: node.nodeType,
      compute_id: node.computeId,
      console_type: node.consoleType,
      properties: structuredClone(properties),
      x: at.x,
      y: at.y,
      z: at.z ?? 0,
      locked: false,
    });
    try {
      await node.compute.duplicateNode(lab.project.id, node.nodeType, node.id, copy.id);
    } catch (err) {
      await this.remove(lab, copy).catch(() => {});
      if (err instanceof NotFoundError || (err instanceof UpstreamError && err.status === 404)) throw new ConflictError('This node type cannot be duplicated');
      throw err;
    }
    await this.refresh(lab, copy);
    return copy;
  }

  /** start, stop, suspend or reload a node. */
  async act(lab: Lab, node: ControllerNode, action: NodeAction): Promise<ControllerNode> {
    return node.lock.run(async () => {
      if (action === 'start' || action === 'reload') this.checkBeforeStart(node);
      await node.compute.nodeAction(lab.project.id, node.nodeType, node.id, action);
      await this.refresh(lab, node);
      await lab.persist();
      // The compute's own report of the change may have been published already.
      this.publishIfChanged(lab, node);
      return node;
    });
  }

  /**
   * start, stop, suspend or reload every node of the lab at once. As in GNS3, a project-wide stop or
   * suspend leaves the always-running nodes (switch, hub) started: they keep forwarding.
   */
  async actAll(lab: Lab, action: NodeAction): Promise<void> {
    const keepRunning = action === 'stop' || action === 'suspend';
    await Promise.all([...lab.nodes.values()].filter((n) => !(keepRunning && n.alwaysRunning)).map((n) => this.act(lab, n, action)));
  }

  /** A remote compute may be a GNS3 server that checks nothing: what would reach its command lines is checked here. */
  private checkProperties(nodeType: string, computeId: string, properties: Record<string, unknown>): void {
    if (computeId !== LOCAL_COMPUTE_ID) this.types.find(nodeType)?.checkProperties?.(properties, this.deps.policy ?? STRICT_HOST_POLICY);
  }

  /**
   * A node restored onto a remote compute (an opened project, an imported archive) was never
   * checked by a client's request: it does not start there unless it is within the rules (409 naming the property).
   */
  private checkBeforeStart(node: ControllerNode): void {
    try {
      this.checkProperties(node.nodeType, node.computeId, node.properties);
    } catch (err) {
      if (err instanceof InvalidError) throw new ConflictError(`node ${node.name} cannot start on compute ${node.computeId}: ${err.message}`);
      throw err;
    }
  }

  /** Re-reads the node's state from its compute. */
  async refresh(lab: Lab, node: ControllerNode): Promise<void> {
    if (node.onCompute) node.absorb(await node.compute.getNode(lab.project.id, node.nodeType, node.id));
  }

  /** Takes a compute's report of a node (its GET JSON) and publishes node.updated if that changed the node. */
  absorbReport(lab: Lab, node: ControllerNode, state: Record<string, unknown>): void {
    node.absorb(state);
    this.publishIfChanged(lab, node);
  }

  /** Publishes node.updated unless the node's JSON is the one last published. */
  publishIfChanged(lab: Lab, node: ControllerNode): void {
    if (JSON.stringify(node.toJSON()) !== node.lastPublished) this.publish('node.updated', lab, node);
  }

  private publish(action: 'node.created' | 'node.updated', lab: Lab, node: ControllerNode): void {
    const json = node.toJSON();
    node.lastPublished = JSON.stringify(json);
    this.deps.events.publish(action, json, lab.project.id);
  }

  /**
   * Deletes a node with its links, in one write: if it fails, the node and its links are as they
   * were, NIOs and captures untouched; once it is on disk the links' NIOs go, then the node on its
   * compute. Links cannot be added to the node meanwhile; link changes already under way on it
   * finish first. Two deletes of one node are one delete.
   */
  remove(lab: Lab, node: ControllerNode): Promise<void> {
    return lab.removeOnce(node.id, () =>
      lab.deletingNode(node, async () => {
        const links = lab.linksOf(node);
        await this.deps.links.removeAlong(lab, links, () => node.lock.run(() => lab.dropNode(node, links)));
        await node.lock.run(() => this.removeFromCompute(lab, node));
        this.deps.events.publish('node.deleted', node.toJSON(), lab.project.id);
      }),
    );
  }

  /** Deletes the node on its compute; a compute that fails leaves an orphan there until the project closes, which is logged by the compute call's caller. */
  private async removeFromCompute(lab: Lab, node: ControllerNode): Promise<void> {
    if (node.onCompute) await node.compute.deleteNode(lab.project.id, node.nodeType, node.id).catch(() => {});
  }
}

/** The entries of `source` named in `keys`. */
function pick(source: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((k) => k in source).map((k) => [k, source[k]]));
}

/** GNS3's default node label: the name centred above the symbol, in the client's default style. */
function defaultLabel(symbolHeight: number): Record<string, unknown> {
  return { y: -Math.round(symbolHeight / 2 + 10), style: null, x: null, rotation: 0 };
}

