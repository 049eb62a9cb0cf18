import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { deleteTemplate, findTemplate } from '../../client/templates.js';
import { templateLabel } from './render.js';

/** Options of `template delete`. */
export interface TemplateDeleteOptions {
  template: string;
}

/** `emuctl template delete T`. */
export function templateDeleteCommand(f: Factory, run = runTemplateDelete): Command {
  return new Command('delete')
    .alias('rm')
    .description('delete a custom template (built-in ones stay)')
    .argument('<template>', 'template name, UUID or unique UUID prefix')
    .action(async (template: string, _flags: object, cmd: Command) => run({ template }, await f.context(cmd)));
}

/** Deletes the template (DELETE /v2/templates/{template_id}). */
export async function runTemplateDelete(opts: TemplateDeleteOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const template = await findTemplate(api, opts.template);
  await deleteTemplate(api, template.template_id);
  ctx.out.result({ deleted: true, template_id: template.template_id, name: template.name });
  ctx.out.success(`Deleted template ${templateLabel(template)}`);
}
