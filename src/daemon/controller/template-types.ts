import type { JsonSchema } from '../schemas/validation.js';
import type { HostPolicy } from '../host-policy.js';

/** A template field: its schema, and GNS3's default for templates that do not set it. */
export type TemplateField = JsonSchema & { default?: unknown };

/**
 * What templates of one node type look like (GNS3's <type>_template schema): the type's own fields
 * with their defaults, the defaults of the common fields, and the built-in template, if GNS3 2.2
 * has one. Each node type of the controller's registry (node-types.ts) carries one.
 */
export interface TemplateSpec {
  /** The type's own fields, with their defaults. */
  fields: Record<string, TemplateField>;
  /** Defaults of the common fields for this type. */
  category: 'router' | 'switch' | 'guest' | 'firewall';
  default_name_format: string;
  symbol: string;
  /** Rules beyond the schema, checked at create and update (InvalidError): what would reach a command line. */
  check?(template: Record<string, unknown>, policy: HostPolicy): void;
  /** The built-in template of this type (GNS3 2.2's name and fields); none for types without one. */
  builtin?: { name: string; properties?: Record<string, unknown>; fields?: Record<string, unknown> };
}

/** A template type: GNS3's template_type (also the node_type of the nodes it makes) and its spec. */
export type TemplateType = TemplateSpec & { type: string };

