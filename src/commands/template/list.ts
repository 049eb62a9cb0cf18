import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { listTemplates } from '../../client/templates.js';
import { templateTable } from './render.js';

/** Options of `template list` (none of its own). */
export type TemplateListOptions = Record<string, never>;

/** `emuctl template list`. */
export function templateListCommand(f: Factory, run = runTemplateList): Command {
  return new Command('list')
    .alias('ls')
    .description('list the templates nodes are made from (built-in and custom)')
    .action(async (_flags: object, cmd: Command) => run({}, await f.context(cmd)));
}

/** Lists the templates (GET /v2/templates). */
export async function runTemplateList(_opts: TemplateListOptions, ctx: Context): Promise<void> {
  const templates = await listTemplates(await ctx.api());
  ctx.out.result(templates, () => templateTable(templates, ctx.out.style));
}
