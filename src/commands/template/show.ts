import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { findTemplate } from '../../client/templates.js';
import { templateDetails } from './render.js';

/** Options of `template show`. */
export interface TemplateShowOptions {
  template: string;
}

/** `emuctl template show T`. */
export function templateShowCommand(f: Factory, run = runTemplateShow): Command {
  return new Command('show')
    .description("show a template's fields")
    .argument('<template>', 'template name, UUID or unique UUID prefix')
    .action(async (template: string, _flags: object, cmd: Command) => run({ template }, await f.context(cmd)));
}

/** Shows one template. */
export async function runTemplateShow(opts: TemplateShowOptions, ctx: Context): Promise<void> {
  const template = await findTemplate(await ctx.api(), opts.template);
  ctx.out.result(template, () => templateDetails(template, ctx.out.style));
}
