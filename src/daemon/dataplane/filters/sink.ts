/** Where a filter stage hands the frames it lets through. */
export interface FrameSink {
  push(frame: Buffer): void;
}

/** The port counter filters increment when they drop a frame. */
export interface DropCounter {
  drops: number;
}

/** A filter stage: a sink that passes frames on to `next`; timed stages hold frames and timers until disposed. */
export interface FilterStage extends FrameSink {
  dispose?(): void;
}
