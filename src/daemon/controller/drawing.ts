import { CachedTopologyEntry } from './topology-entry.js';
/** The fields of a GNS3 drawing a client sets. */
export interface DrawingFields {
  svg: string;
  x: number;
  y: number;
  z: number;
  locked: boolean;
  rotation: number;
}

/** GNS3's defaults for a new drawing. */
export const DRAWING_DEFAULTS: DrawingFields = { svg: '<svg></svg>', x: 0, y: 0, z: 2, locked: false, rotation: 0 };

/** A drawing (shape, text or picture as SVG) on a project's canvas. */
export class Drawing extends CachedTopologyEntry {
  constructor(readonly id: string, readonly projectId: string, public fields: DrawingFields) {
    super();
  }

  /** The GNS3 drawing JSON. */
  toJSON(): Record<string, unknown> {
    return { drawing_id: this.id, project_id: this.projectId, ...this.fields };
  }

  /** The drawing as the .gns3 topology file keeps it. */
  override toTopology(): Record<string, unknown> {
    return { drawing_id: this.id, ...this.fields };
  }
}
