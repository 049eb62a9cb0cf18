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

/**
 * The node types the controller can place on a compute: built from the kinds the daemon was started
 * with (startDaemon's `kinds`, NODE_KINDS unless told), the same list the compute's registry comes from.
 */
export class ControllerNodeTypes {
  private readonly types: ControllerNodeType[];
  private readonly byType: Map<string, ControllerNodeType>;

  constructor(kinds: readonly ControllerKind[] = NODE_KINDS) {
    this.types = kinds.map((kind) => ({ type: kind.type, ...kind.controller, template: kind.template }));
    this.byType = new Map(this.types.map((t) => [t.type, t]));
  }

  /** The names of the known node types. */
  names(): string[] {
    return this.types.map((t) => t.type);
  }

  /** The rules of a node type, or InvalidError (400) listing the known ones. */
  of(type: string): ControllerNodeType {
    const found = this.byType.get(type);
    if (!found) throw new InvalidError(`Unknown node_type '${type}' (known: ${this.names().join(', ')})`);
    return found;
  }

  /** The rules of a node type when known (a node restored from a topology file may name another). */
  find(type: string): ControllerNodeType | undefined {
    return this.byType.get(type);
  }

  /** The template types: one per node type. */
  templateTypes(): TemplateType[] {
    return this.types.map((t) => ({ type: t.type, ...t.template }));
  }

  /** The template type of that name, if this controller knows it. */
  templateType(type: string): TemplateType | undefined {
    const found = this.byType.get(type);
    return found && { type: found.type, ...found.template };
  }

  /** The symbol a node of that type made through the API without one gets, if not GNS3's DEFAULT_SYMBOL. */
  apiSymbolOf(nodeType: string): string | undefined {
    return this.byType.get(nodeType)?.apiSymbol;
  }
}
