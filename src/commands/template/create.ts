import { Command, InvalidArgumentError, Option } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { computeIdFor } from '../../client/nodes.js';
import { createTemplate, type TemplateCreate } from '../../client/templates.js';
import { templateDetails, templateLabel } from './render.js';

/** Options of `template create`. */
export interface TemplateCreateOptions {
  name: string;
  /** GNS3 template_type: vpcs, ethernet_switch, ethernet_hub, qemu (a GNS3 server knows more). */
  type: string;
  /** Compute name or id the template's nodes run on (default `local`). */
  compute?: string;
  /** GNS3 default_name_format, e.g. `R{0}`. */
  nameFormat?: string;
  symbol?: string;
  category?: string;
  /** The type's own fields, KEY=VALUE (VALUE read as JSON when it is JSON). */
  set: Record<string, unknown>;
}

/** Parses one `--set KEY=VALUE` for commander into the accumulated fields. */
export function parseField(value: string, previous: Record<string, unknown> = {}): Record<string, unknown> {
  const eq = value.indexOf('=');
  if (eq <= 0) throw new InvalidArgumentError('expected KEY=VALUE, e.g. console_type=none or ports_mapping=[...].');
  const raw = value.slice(eq + 1);
  let parsed: unknown = raw;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // Not JSON: the text itself.
  }
  return { ...previous, [value.slice(0, eq)]: parsed };
}

/** `emuctl template create NAME --type T [--compute C] [--name-format F] [--symbol S] [--category C] [--set K=V]…`. */
export function templateCreateCommand(f: Factory, run = runTemplateCreate): Command {
  return new Command('create')
    .description('create a custom template')
    .argument('<name>', 'name of the template')
    .addOption(new Option('-t, --type <type>', 'template type: vpcs, ethernet_switch, ethernet_hub or qemu').makeOptionMandatory())
    .option('-c, --compute <compute>', 'compute its nodes run on, by name or id (default: local)')
    .option('--name-format <format>', 'how its nodes are named, {0} being a number (e.g. R{0})')
    .option('--symbol <symbol>', 'symbol id, e.g. :/symbols/router.svg')
    .addOption(new Option('--category <category>', 'GUI category').choices(['router', 'switch', 'guest', 'firewall']))
    .option('--set <key=value>', "a field of the template's type, VALUE as JSON or text (repeatable)", parseField, {})
    .action(async (name: string, flags: { type: string; compute?: string; nameFormat?: string; symbol?: string; category?: string; set: Record<string, unknown> }, cmd: Command) =>
      run({ name, type: flags.type, compute: flags.compute, nameFormat: flags.nameFormat, symbol: flags.symbol, category: flags.category, set: flags.set }, await f.context(cmd)));
}

/** Creates the template (POST /v2/templates) and reports it. */
export async function runTemplateCreate(opts: TemplateCreateOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const body: TemplateCreate = {
    ...opts.set,
    name: opts.name,
    template_type: opts.type,
    compute_id: await computeIdFor(api, opts.compute),
  };
  if (opts.nameFormat !== undefined) body.default_name_format = opts.nameFormat;
  if (opts.symbol !== undefined) body.symbol = opts.symbol;
  if (opts.category !== undefined) body.category = opts.category;
  const template = await createTemplate(api, body);
  ctx.out.result(template, () => templateDetails(template, ctx.out.style));
  ctx.out.success(`Created template ${templateLabel(template)}`);
}
