/**
 * Messages between the main thread (index.ts) and the dataplane worker.
 * Every request carries an id; the worker answers each one exactly once,
 * after the change is applied.
 */
import type { DomainErrorKind } from '../errors.js';
import type { BpfProgram } from './bpf-compile.js';
import type { FilterSpec } from './filters/spec.js';
import type { DataplaneNodeKind, NioSpec, SwitchPortConfig } from './types.js';

/** Filters as the worker applies them: validated numbers plus bpf programs compiled on the main thread. */
export interface CompiledFilters {
  spec: FilterSpec;
  programs: BpfProgram[];
}

export type Command =
  | { op: 'createNode'; nodeId: string; kind: DataplaneNodeKind; ports: SwitchPortConfig[]; macAgeingSeconds?: number }
  | { op: 'updatePorts'; nodeId: string; ports: SwitchPortConfig[] }
  | { op: 'deleteNode'; nodeId: string }
  | { op: 'setNodeSuspended'; nodeId: string; suspended: boolean }
  | { op: 'addNio'; nodeId: string; port: number; tunnel: NioSpec; filters?: CompiledFilters; suspend?: boolean }
  | { op: 'updateNio'; nodeId: string; port: number; filters?: CompiledFilters; suspend?: boolean }
  | { op: 'removeNio'; nodeId: string; port: number }
  | { op: 'startCapture'; nodeId: string; port: number; path: string; root?: string; linkType: number; resumeGeneration?: number }
  | { op: 'stopCapture'; nodeId: string; port: number }
  | { op: 'captureInfo'; nodeId: string; port: number }
  | { op: 'stats'; nodeId: string }
  | { op: 'macTable'; nodeId: string }
  | { op: 'close' }
  | { op: 'engine' }
  /** The worker's V8 heap (HeapFigures), for the daemon's memory log. */
  | { op: 'heap' }
  /** Failpoint dataplane.worker.crash: the worker dies of an uncaught error, as a bug would kill it. */
  | { op: 'crash' };

export type Request = Command & { id: number };

/** What the worker is started with. */
export interface WorkerConfig {
  engine: 'js' | 'native';
  /** Native engine threads. */
  threads: number;
  /** Native engine: TAPs with TCP offloads. */
  offload: boolean;
}

/** `internal` marks an error that is not a domain error (a bug): rebuilt as a plain Error. */
export type ErrorKind = DomainErrorKind | 'internal';

/** What the worker reports on its own, outside any answer: a capture that a failed write (full disk) stopped. */
export interface CaptureFailedEvent {
  event: 'captureFailed';
  nodeId: string;
  port: number;
  path: string;
  generation: number;
  /** The errno name of the failed write (ENOSPC…). */
  code: string;
}

export type Reply =
  | { id: number; ok: true; value?: unknown }
  | { id: number; ok: false; kind: ErrorKind; message: string };
