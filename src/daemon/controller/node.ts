import type { ComputeApi } from '../compute/compute-api.js';
import { AsyncLock } from '../../util/async-lock.js';
import { NotFoundError } from '../errors.js';
import type { NODE_CREATE_SCHEMA } from '../schemas/lab.js';
import type { FromSchema } from '../schemas/validation.js';
import type { NodePort } from './node-ports.js';
import type { ControllerNodeType, NodeView } from './node-types.js';
import { CachedTopologyEntry } from './topology-entry.js';

/** Layout and presentation fields the controller keeps for the GUI (GNS3 names). */
export const NODE_LAYOUT_DEFAULTS = {
  x: 0,
  y: 0,
  z: 1,
  locked: false,
  label: null as Record<string, unknown> | null,
  symbol: null as string | null,
  width: 65,
  height: 59,
  console_auto_start: false,
  port_name_format: 'Ethernet{0}',
  port_segment_size: 0,
  first_port_name: null as string | null,
  custom_adapters: [] as unknown[],
  template_id: null as string | null,
};
export type NodeLayout = typeof NODE_LAYOUT_DEFAULTS;

/** A console type a node create body may name (null: the compute's default). */
export type ConsoleType = Exclude<FromSchema<typeof NODE_CREATE_SCHEMA>['console_type'], undefined>;

/** Fields of the compute's node JSON that are not settable properties (GNS3 keeps them out of `properties` too). */
/** Node types GNS3's controller never sends a console_type to (controller/node.py). */
const CONSOLELESS_TYPES = ['cloud', 'nat', 'ethernet_hub', 'frame_relay_switch', 'atm_switch'];

const NOT_PROPERTIES = ['node_id', 'project_id', 'name', 'status', 'console', 'console_type', 'node_directory', 'command_line'];

/** A node as the controller knows it: where it runs, its properties and the compute's last answer. */
export class ControllerNode extends CachedTopologyEntry {
  readonly lock = new AsyncLock();
  /** The compute's node JSON, refreshed on every change. */
  computeState: Record<string, unknown> = {};
  /** Whether the compute currently runs this node (false while its project is closed). */
  onCompute = false;
  /** The JSON last sent as node.created or node.updated, so that a report that changes nothing is not sent again. */
  lastPublished?: string;

  constructor(
    readonly id: string,
    readonly projectId: string,
    readonly nodeType: string,
    readonly computeId: string,
    public name: string,
    public properties: Record<string, unknown>,
    public layout: NodeLayout,
    public consoleType: ConsoleType,
    readonly compute: ComputeApi,
    readonly consoleHost: string,
    /** Its type's rules; none for a type this controller does not know (a node restored from a topology file). */
    readonly rules: ControllerNodeType | undefined,
  ) {
    super();
  }

  get status(): string {
    return this.onCompute ? String(this.computeState.status ?? 'stopped') : 'stopped';
  }

  /** GNS3's is_always_running (switch, hub): nothing to start, stop or save. */
  get alwaysRunning(): boolean {
    return this.rules?.alwaysRunning ?? false;
  }

  get console(): number | null {
    return (this.computeState.console as number | null | undefined) ?? (this.properties.console as number | undefined) ?? null;
  }

  get ports(): NodePort[] {
    return this.rules?.ports(this.view()) ?? [];
  }

  private view(): NodeView {
    return { properties: this.properties, computeState: this.computeState, layout: this.layout };
  }

  /** The port at (adapter, port), or NotFoundError. */
  port(adapter: number, portNumber: number): NodePort {
    const port = this.ports.find((p) => p.adapter_number === adapter && p.port_number === portNumber);
    if (!port) throw new NotFoundError(`Port ${adapter}/${portNumber} doesn't exist on node ${this.name}`);
    return port;
  }

  /** The body the compute gets to create this node. */
  computeBody(): Record<string, unknown> {
    // As GNS3's controller: a console type the node has goes to the compute, except for kinds that have none.
    const consoleType = this.consoleType && !CONSOLELESS_TYPES.includes(this.nodeType) ? { console_type: this.consoleType } : {};
    return { name: this.name, node_id: this.id, ...consoleType, ...this.properties, ...this.rules?.computeFields?.(this.view()) };
  }

  /** Takes the compute's answer: its type-specific fields become properties. */
  absorb(state: Record<string, unknown>): void {
    this.computeState = state;
    for (const [k, v] of Object.entries(state)) if (!NOT_PROPERTIES.includes(k)) this.properties[k] = v;
    // A startup script is sent once; the node's file holds it from then on (GNS3 drops it the same way).
    delete this.properties.startup_script;
    if (typeof state.name === 'string') this.rename(state.name);
    this.touch();
  }

  /** Changes the name; the label follows it (re-centred), as in GNS3. */
  rename(name: string): void {
    if (name === this.name) return;
    this.name = name;
    if (this.layout.label) this.layout.label = { ...this.layout.label, text: name, x: null };
    this.touch();
  }

  /** The GNS3 controller node JSON. */
  toJSON(): Record<string, unknown> {
    return {
      node_id: this.id,
      project_id: this.projectId,
      compute_id: this.computeId,
      name: this.name,
      node_type: this.nodeType,
      status: this.status,
      console: this.console,
      console_type: this.consoleType ?? (this.computeState.console_type as string | undefined) ?? 'none',
      console_host: this.consoleHost,
      command_line: (this.computeState.command_line as string | undefined) ?? null,
      node_directory: (this.computeState.node_directory as string | undefined) ?? null,
      properties: this.properties,
      ports: this.ports,
      ...this.layout,
    };
  }

  /** The node as the .gns3 topology file keeps it (GNS3's topology dump: no live state). */
  override toTopology(): Record<string, unknown> {
    const { status: _s, ports: _p, console_host: _h, project_id: _pid, command_line: _c, node_directory: _d, ...kept } = this.toJSON();
    return kept;
  }
}
