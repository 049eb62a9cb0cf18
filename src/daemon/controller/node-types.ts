import { InvalidError } from '../errors.js';
import { NODE_KINDS } from '../kinds/index.js';
import type { NodeKind } from '../kinds/kind.js';
import type { ControllerRules } from './node-rules.js';
import type { TemplateSpec, TemplateType } from './template-types.js';

export type { NodeView } from './node-ports.js';

/** One node type as the controller knows it: its rules and its template. */
export type ControllerNodeType = ControllerRules & { type: string; template: TemplateSpec };

/** What the controller takes of a node kind (kinds/kind.ts's NodeKind has it). */
export type ControllerKind = Pick<NodeKind, 'type' | 'controller' | 'template'>;

/** The node types the controller can place on a compute: the kinds the daemon was started with (NODE_KINDS unless told). */
let TYPES: ControllerNodeType[] = [];
let BY_TYPE = new Map<string, ControllerNodeType>();
useNodeKinds(NODE_KINDS);

/** Makes the controller know these kinds, and only these: startDaemon calls it with the kinds it was given, before anything reads a type. */
export function useNodeKinds(kinds: readonly ControllerKind[]): void {
  TYPES = kinds.map((kind) => ({ type: kind.type, ...kind.controller, template: kind.template }));
  BY_TYPE = new Map(TYPES.map((t) => [t.type, t]));
}

/** The names of the known node types. */
export function nodeTypeNames(): string[] {
  return TYPES.map((t) => t.type);
}

/** The rules of a node type, or InvalidError (400) listing the known ones. */
export function nodeTypeOf(type: string): ControllerNodeType {
  const found = BY_TYPE.get(type);
  if (!found) throw new InvalidError(`Unknown node_type '${type}' (known: ${nodeTypeNames().join(', ')})`);
  return found;
}

/** The rules of a node type when known (a node restored from a topology file may name another). */
export function findNodeType(type: string): ControllerNodeType | undefined {
  return BY_TYPE.get(type);
}

/** The template types: one per node type. */
export function templateTypes(): TemplateType[] {
  return TYPES.map((t) => ({ type: t.type, ...t.template }));
}

/** The template type of that name, if this controller knows it. */
export function templateType(type: string): TemplateType | undefined {
  const found = BY_TYPE.get(type);
  return found && { type: found.type, ...found.template };
}

/** The symbol a node of that type made through the API without one gets, if not GNS3's DEFAULT_SYMBOL. */
export function apiSymbolOf(nodeType: string): string | undefined {
  return BY_TYPE.get(nodeType)?.apiSymbol;
}
