import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import type { Plan } from '../../lab/plan.js';
import { streamServer } from '../shared/streams.js';
import { readLabFile } from './shared.js';

/** Options of `lab up`. */
export interface LabUpOptions {
  file: string;
  /** Print the plan only. */
  dryRun: boolean;
}

/** `emuctl lab up FILE [--dry-run]`. */
export function labUpCommand(f: Factory, run = runLabUp): Command {
  return new Command('up')
    .description('create or update the lab of a topology file (plan, then apply it step by step), start its nodes and wait for them')
    .argument('<file>', 'lab file (YAML)')
    .option('--dry-run', 'print the plan, change nothing')
    .action(async (file: string, flags: { dryRun?: boolean }, cmd: Command) => run({ file, dryRun: flags.dryRun === true }, await f.context(cmd)));
}

/** `+ 3 to add, ~ 1 to change, - 0 to delete`. */
export function planSummary(plan: Plan): string {
  const count = (mark: string) => plan.steps.filter((s) => s.text.startsWith(mark)).length;
  const starts = plan.steps.find((s) => s.kind === 'start-nodes');
  const parts = [`${count('+')} to add`, `${count('~')} to change`, `${count('-')} to delete`];
  if (starts && starts.kind === 'start-nodes') parts.push(`${starts.names.length} to start`);
  return parts.join(', ');
}

/** Reads the file and the server, prints the plan, then (unless --dry-run) applies it with a line per step. */
export async function runLabUp(opts: LabUpOptions, ctx: Context): Promise<void> {
  const { readStartupFiles } = await import('../../lab/startup-files.js');
  const spec = await readStartupFiles(await readLabFile(opts.file, ctx.env));
  const api = await ctx.api();
  const { readLabState, readStartupFileState } = await import('../../lab/state.js');
  const { planLab } = await import('../../lab/plan.js');
  const state = await readStartupFileState(api, await readLabState(api, spec.name), spec);
  const plan = planLab(spec, state);
  const lines = plan.steps.map((s) => s.text);
  const result = (applied: boolean, projectId?: string) => ({ lab: spec.name, project_id: projectId ?? null, changed: lines.length > 0, applied, plan: lines });
  if (!lines.length) {
    ctx.out.result(result(false, state.project?.project_id), () => '');
    ctx.out.success(`No changes: lab ${spec.name} is up to date`);
    return;
  }
  if (!ctx.out.json) ctx.out.writeOut(`Plan for lab ${spec.name} (${planSummary(plan)}):\n${lines.map((l) => `  ${l}`).join('\n')}\n`);
  if (opts.dryRun) {
    ctx.out.result(result(false, state.project?.project_id));
    ctx.out.note('dry run: nothing was changed');
    return;
  }
  const { applyPlan } = await import('../../lab/apply.js');
  const project = await applyPlan(plan, { api, server: streamServer(ctx), project: state.project }, {
    async step(text, task) {
      const value = await ctx.out.spin(text, task);
      ctx.out.success(text);
      return value;
    },
  });
  ctx.out.result(result(true, project.project_id));
  ctx.out.success(`Lab ${spec.name} is up (project ${project.project_id})`);
}
