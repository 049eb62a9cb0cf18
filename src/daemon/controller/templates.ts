import { randomUUID } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConflictError, InvalidError, NotFoundError, storageError } from '../errors.js';
import { STRICT_HOST_POLICY, type HostPolicy } from '../host-policy.js';
import type { Logger } from '../logger.js';
import { UUID_SCHEMA, validate, type FromSchema, type JsonSchema } from '../schemas/validation.js';
import type { TEMPLATE_USAGE_SCHEMA } from '../schemas/project-extras.js';
import { writeFileAtomic } from '../atomic-write.js';
import type { ControllerEvents } from './events.js';
import { GroupCommit } from './group-commit.js';
import { NODE_LAYOUT_DEFAULTS } from './node.js';
import type { NodeCreate } from './nodes.js';
import { ControllerNodeTypes } from './node-types.js';
import type { TemplateType } from './template-types.js';
import { takeOut } from '../../util/take-out.js';
import { DNS_NAMESPACE, uuidV3 } from '../../util/uuid-v3.js';

/** A template as GNS3 2.2 returns it: its settings plus `template_id`, `builtin` and `compute_id`. */
export type Template = Record<string, unknown> & { template_id: string; template_type: string; name: string; builtin: boolean; compute_id: string | null };

/** Where a node made from a template goes (GNS3's TEMPLATE_USAGE_SCHEMA). */
export type TemplateUsage = FromSchema<typeof TEMPLATE_USAGE_SCHEMA>;

/** GNS3's BASE_TEMPLATE_PROPERTIES: the fields every template has. */
export const BASE_TEMPLATE_PROPERTIES: Record<string, JsonSchema> = {
  template_id: UUID_SCHEMA,
  template_type: { type: 'string' },
  name: { type: 'string', minLength: 1 },
  compute_id: { type: ['null', 'string'] },
  default_name_format: { type: 'string', minLength: 1 },
  symbol: { type: 'string', minLength: 1 },
  category: { anyOf: [{ type: 'integer' }, { enum: ['router', 'switch', 'guest', 'firewall'] }] },
  builtin: { type: 'boolean' },
};

/** GNS3's old numeric categories. */
const CATEGORY_NAMES: Record<number, string> = { 0: 'router', 1: 'switch', 2: 'guest', 3: 'firewall' };

/** Fields a client may not change on an existing template (GNS3 drops them from a PUT). */
const FIXED_FIELDS = ['template_id', 'template_type', 'compute_id', 'builtin'];

/** The templates of this controller: GNS3 2.2's built-in ones, and custom ones persisted (atomically) in the state directory. */
export class TemplateManager {
  private readonly types: ControllerNodeTypes;
  private readonly builtins: Template[];
  private readonly custom = new Map<string, Template>();
  /** A change is applied, written, and undone if the write fails (507). */
  private readonly writer = new GroupCommit(() => this.save(), (err) => storageError(this.deps.file ?? 'templates', err));

  /** `types`: the node types of the daemon's kinds (NODE_KINDS unless given). */
  constructor(private readonly deps: { file?: string; events: ControllerEvents; log: Logger; policy?: HostPolicy; types?: ControllerNodeTypes }) {
    this.types = deps.types ?? new ControllerNodeTypes();
    this.builtins = this.types.templateTypes().filter((t) => t.builtin).map(builtinTemplate);
  }

  /** Reads the saved custom templates; one that no longer validates is skipped with a warning, as GNS3 does. */
  async load(): Promise<void> {
    if (!this.deps.file) return;
    let saved: unknown;
    try {
      saved = JSON.parse(await readFile(this.deps.file, 'utf8'));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw new Error(`cannot read saved templates ${this.deps.file}: ${(err as Error).message}`);
    }
    for (const entry of Array.isArray(saved) ? saved : []) {
      try {
        // A saved template is kept even if its type's checks refuse it now: the nodes it makes are refused instead.
        const template = checked(this.types, entry as Record<string, unknown>, { saved: true });
        this.custom.set(template.template_id, template);
      } catch (err) {
        this.deps.log.warn(`skipping saved template ${JSON.stringify(entry).slice(0, 200)}: ${(err as Error).message}`);
      }
    }
  }

  list(): Template[] {
    return [...this.builtins, ...this.custom.values()];
  }

  /** The template with that id, or NotFoundError. */
  get(id: string): Template {
    const template = this.builtins.find((t) => t.template_id === id) ?? this.custom.get(id);
    if (!template) throw new NotFoundError(`Template ID ${id} doesn't exist`);
    return template;
  }

  async create(body: Record<string, unknown>): Promise<Template> {
    const id = typeof body.template_id === 'string' ? body.template_id.toLowerCase() : randomUUID();
    if (this.builtins.some((t) => t.template_id === id) || this.custom.has(id)) throw new ConflictError(`Template ID '${id}' already exists`);
    const template = checked(this.types, { ...body, template_id: id }, { policy: this.deps.policy });
    this.custom.set(id, template);
    await this.writer.commit(() => this.custom.delete(id));
    this.deps.events.publish('template.created', template);
    return template;
  }

  /** Changes a custom template (its id, type, compute and built-in flag stay); built-in templates cannot change. */
  async update(id: string, body: Record<string, unknown>): Promise<Template> {
    const current = this.custom.get(id);
    if (!current) {
      this.get(id);
      throw new ConflictError(`Template ID ${id} cannot be changed because it is a builtin`);
    }
    const change = Object.fromEntries(Object.entries(body).filter(([key]) => !FIXED_FIELDS.includes(key)));
    const template = checked(this.types, { ...current, ...change }, { policy: this.deps.policy });
    this.custom.set(id, template);
    await this.writer.commit(() => this.custom.set(id, current));
    this.deps.events.publish('template.updated', template);
    return template;
  }

  async remove(id: string): Promise<void> {
    const template = this.get(id);
    if (template.builtin) throw new ConflictError(`Template ID ${id} cannot be deleted because it is a builtin`);
    await this.writer.commit(takeOut(this.custom, [id]));
    this.deps.events.publish('template.deleted', template);
  }

  /** A copy of a custom template under a new id (GNS3 keeps the name). */
  async duplicate(id: string): Promise<Template> {
    const template = this.get(id);
    if (template.builtin) throw new ConflictError(`Template ID ${id} cannot be duplicated because it is a builtin`);
    const { template_id: _id, ...settings } = structuredClone(template);
    return this.create(settings);
  }

  /** Writes the custom templates; the content is taken before the first await, as group commit needs. */
  private async save(): Promise<void> {
    if (!this.deps.file) return;
    const content = JSON.stringify([...this.custom.values()], null, 2) + '\n';
    await mkdir(dirname(this.deps.file), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.deps.file, content);
  }
}

/**
 * The node a template makes (GNS3's add_node_from_template): named from `default_name_format`
 * (`PC{0}` gives PC1, PC2, …) unless a name is given; on the template's compute, or for a
 * built-in template the one the client picks (`local` when it picks none).
 */
export function nodeFromTemplate(template: Template, usage: TemplateUsage): NodeCreate {
  const { template_id, template_type, builtin, compute_id, name, default_name_format, category: _c, properties, ...fields } = template;
  const format = typeof default_name_format === 'string' ? default_name_format : '{name}-{0}';
  const body: NodeCreate = {
    name: usage.name ?? format.replace('{name}', name),
    node_type: template_type,
    compute_id: (builtin ? usage.compute_id : compute_id ?? usage.compute_id) ?? 'local',
    template_id,
    x: usage.x,
    y: usage.y,
    properties: { ...(properties as Record<string, unknown> | undefined) },
  };
  for (const [key, value] of Object.entries(fields)) {
    if (key in NODE_LAYOUT_DEFAULTS || key === 'console_type' || key === 'console') (body as unknown as Record<string, unknown>)[key] = value;
    else if (key !== 'width' && key !== 'height' && value !== null && value !== '') body.properties![key] = value;
  }
  return body;
}

/** A custom template validated against its type (GNS3's schemas), with GNS3's defaults filled in. */
function checked(types: ControllerNodeTypes, settings: Record<string, unknown>, { saved = false, policy = STRICT_HOST_POLICY }: { saved?: boolean; policy?: HostPolicy } = {}): Template {
  validate(TEMPLATE_CREATE_SCHEMA, settings, 'template');
  const type = types.templateType(settings.template_type as string);
  if (!type) throw new InvalidError(`Unknown template_type '${String(settings.template_type)}' (known: ${types.names().join(', ')})`);
  const template: Record<string, unknown> = { ...settings };
  if (typeof template.category === 'number') template.category = CATEGORY_NAMES[template.category] ?? template.category;
  const defaults: Record<string, unknown> = { category: type.category, default_name_format: type.default_name_format, symbol: type.symbol };
  for (const [key, field] of Object.entries(type.fields)) if (field.default !== undefined) defaults[key] = structuredClone(field.default);
  for (const [key, value] of Object.entries(defaults)) template[key] ??= value;
  validate(typeSchema(type), template, `${type.type} template`);
  if (!saved) type.check?.(template, policy);
  return { ...template, builtin: false } as Template;
}

/** GNS3's TEMPLATE_CREATE_SCHEMA: the common fields, with a name, a type and a compute. */
const TEMPLATE_CREATE_SCHEMA: JsonSchema = {
  type: 'object',
  properties: BASE_TEMPLATE_PROPERTIES,
  required: ['name', 'template_type', 'compute_id'],
};

const typeSchemas = new Map<string, JsonSchema>();

/** The schema of one template type: the common fields and the type's own, nothing else. */
function typeSchema(type: TemplateType): JsonSchema {
  let schema = typeSchemas.get(type.type);
  if (!schema) {
    const own = Object.fromEntries(Object.entries(type.fields).map(([key, { default: _d, ...field }]) => [key, field]));
    schema = { type: 'object', properties: { ...BASE_TEMPLATE_PROPERTIES, ...own }, additionalProperties: false };
    typeSchemas.set(type.type, schema);
  }
  return schema;
}

/** The built-in template of a type, with GNS3's id (a UUID v3 of the type name in the DNS namespace) and fields. */
function builtinTemplate(type: TemplateType): Template {
  const { name, properties, fields } = type.builtin!;
  return {
    template_id: uuidV3(DNS_NAMESPACE, type.type),
    template_type: type.type,
    name,
    default_name_format: type.default_name_format,
    category: type.category,
    symbol: type.symbol,
    ...(properties ? { properties } : {}),
    ...fields,
    builtin: true,
    compute_id: null,
  };
}
