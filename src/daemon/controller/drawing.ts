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
export class Drawing {
  constructor(readonly id: string, readonly projectId: string, public fields: DrawingFields) {}

  /** The GNS3 drawing JSON. */
  toJSON(): Record<string, unknown> {
    return { drawing_id: this.id, project_id: this.projectId, ...this.fields };
  }

  private topologyCache?: Buffer;

  /** Marks the entry as changed: the next topology write serialises it again. */
  touch(): void {
    this.topologyCache = undefined;
  }

  /** `,` and the topology entry as JSON, kept until the next change. */
  topologyBytes(): Buffer {
    return (this.topologyCache ??= Buffer.from(`,${JSON.stringify(this.toTopology())}`));
  }

  /** The drawing as the .gns3 topology file keeps it. */
  toTopology(): Record<string, unknown> {
    return { drawing_id: this.id, ...this.fields };
  }
}
