import type { ComputeKind } from '../compute/node-types.js';
import type { ProcessRegistry } from '../compute/process/process-registry.js';
import type { ControllerRules } from '../controller/node-rules.js';
import type { TemplateSpec } from '../controller/template-types.js';
import type { Logger } from '../logger.js';
import type { DaemonSettings } from '../settings.js';

export type { ComputeKind } from '../compute/node-types.js';
export type { ControllerRules } from '../controller/node-rules.js';
export type { NodeView } from '../controller/node-ports.js';

/** What the daemon hands every kind's compute side when it starts. */
export interface KindDeps {
  settings: DaemonSettings;
  /** The daemon's environment, where binaries are looked up. */
  env: NodeJS.ProcessEnv;
  log: Logger;
  /** The daemon's record of the processes it runs (a restarted daemon ends what a dead one left). */
  registry?: ProcessRegistry;
}

/**
 * One node kind, whole: its GNS3 type name (also the URL segment of its compute routes), the
 * controller's rules, its template, and the compute side the daemon builds from its dependencies.
 * Both registries are built from the one list in kinds/index.ts.
 */
export interface NodeKind {
  type: string;
  controller: ControllerRules;
  /** What templates of this type look like (GNS3 2.2's template schema), built-in one included. */
  template: TemplateSpec;
  compute(deps: KindDeps): ComputeKind;
}
