import { MAX_FILE_NAME_BYTES } from '../compute/capture-files.js';
import type { LinkFilters } from '../../util/link-filters.js';
import { AsyncLock } from '../../util/async-lock.js';
import type { ControllerNode } from './node.js';
import { CachedTopologyEntry } from './topology-entry.js';

/** One end of a link. */
export interface LinkEnd {
  node: ControllerNode;
  adapter_number: number;
  port_number: number;
  /** GNS3's label object (text, style, x, y, rotation); a default one when the client sent none. */
  label?: LinkLabel | null;
  /** The UDP port this end's NIO listens on (while the link is live). */
  lport?: number;
}

/** What a link end's label holds (GNS3 LABEL_OBJECT_SCHEMA: text, style, x, y, rotation). */
export type LinkLabel = Record<string, unknown>;

/** The style GNS3 gives the labels it makes. */
export const DEFAULT_LABEL_STYLE = 'font-family: TypeWriter;font-size: 10.0;font-weight: bold;fill: #000000;fill-opacity: 1.0;';

/**
 * The label GNS3's controller gives a link end that comes without one: `<adapter>/<port>` in its
 * default style, no position (clients place it). gns3-gui and the Web UI read it on every paint.
 */
export function defaultLinkLabel(adapter: number, port: number): LinkLabel {
  return { text: `${adapter}/${port}`, style: DEFAULT_LABEL_STYLE };
}

/** A capture running on one end of the link. */
export interface LinkCapture {
  end: LinkEnd;
  fileName: string;
  path: string;
}

/** A link between two node ports, as the controller keeps it. */
export class ControllerLink extends CachedTopologyEntry {
  /** Serialises the link's own changes (filters, suspend, capture, removal). */
  readonly lock = new AsyncLock();
  /** Checked where they entered (API body or topology file): the dataplane takes them as they are. */
  filters: LinkFilters = {};
  suspend = false;
  linkStyle: Record<string, unknown> = {};
  capture: LinkCapture | null = null;
  /** The last capture, kept after it stops so clients still find its file (GNS3 keeps the fields too). */
  lastCapture: LinkCapture | null = null;

  constructor(readonly id: string, readonly projectId: string, readonly ends: [LinkEnd, LinkEnd], readonly linkType: 'ethernet' | 'serial' = 'ethernet') {
    super();
    // Ends from a client or a topology file without a label (null included) get GNS3's default one.
    for (const end of ends) end.label ??= defaultLinkLabel(end.adapter_number, end.port_number);
  }

  /** The GNS3 default capture file name: `<node1>_<a1>-<p1>_to_<node2>_<a2>-<p2>` cleaned, plus `.pcap`, cut to fit a file name. */
  defaultCaptureFileName(): string {
    const [a, b] = this.ends;
    const raw = `${a.node.name}_${a.adapter_number}-${a.port_number}_to_${b.node.name}_${b.adapter_number}-${b.port_number}`;
    return `${raw.replace(/[^0-9A-Za-z_-]/g, '').slice(0, MAX_FILE_NAME_BYTES - '.pcap'.length)}.pcap`;
  }

  /** The GNS3 Link JSON. */
  toJSON(): Record<string, unknown> {
    return {
      link_id: this.id,
      project_id: this.projectId,
      link_type: this.linkType,
      nodes: this.ends.map((e) => ({ node_id: e.node.id, adapter_number: e.adapter_number, port_number: e.port_number, label: e.label })),
      capturing: this.capture !== null,
      capture_file_name: (this.capture ?? this.lastCapture)?.fileName ?? null,
      capture_file_path: (this.capture ?? this.lastCapture)?.path ?? null,
      capture_compute_id: (this.capture ?? this.lastCapture)?.end.node.computeId ?? null,
      filters: this.filters,
      link_style: this.linkStyle,
      suspend: this.suspend,
    };
  }

  /** The link as the .gns3 topology file keeps it. */
  override toTopology(): Record<string, unknown> {
    return {
      link_id: this.id,
      nodes: this.ends.map((e) => ({ node_id: e.node.id, adapter_number: e.adapter_number, port_number: e.port_number, label: e.label })),
      filters: this.filters,
      link_style: this.linkStyle,
      suspend: this.suspend,
    };
  }
}
