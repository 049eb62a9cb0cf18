import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { findProject } from '../../client/projects.js';

/** Options of `lab save`. */
export interface LabSaveOptions {
  /** Project name, UUID or unique UUID prefix. */
  project: string;
  /** Where to write the file (stdout when absent). */
  output?: string;
}

/** `emuctl lab save NAME [-o FILE]`. */
export function labSaveCommand(f: Factory, run = runLabSave): Command {
  return new Command('save')
    .description('write the lab file of a project, whether lab up, the CLI or the GNS3 GUI built it')
    .argument('<project>', 'project name, UUID or unique UUID prefix')
    .option('-o, --output <file>', 'write the lab file here (default: stdout)')
    .action(async (project: string, flags: { output?: string }, cmd: Command) => run({ project, output: flags.output }, await f.context(cmd)));
}

/** The shipped JSON Schema of lab files (schemas/lab.schema.json beside package.json), if it is there. */
export function labSchemaPath(): string | undefined {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    const candidate = join(dir, 'schemas', 'lab.schema.json');
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Reads the project from the server and writes its lab file. */
export async function runLabSave(opts: LabSaveOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const project = await findProject(api, opts.project);
  const { readProjectState } = await import('../../lab/state.js');
  const { saveLab } = await import('../../lab/save.js');
  const state = await readProjectState(api, project);
  const schema = labSchemaPath();
  const schemaRef = schema && (opts.output ? relative(dirname(resolve(opts.output)), schema) : schema);
  const text = saveLab(state, schemaRef);
  if (opts.output === undefined) {
    ctx.out.writeOut(text);
    return;
  }
  await writeFile(opts.output, text);
  ctx.out.result({ lab: project.name, project_id: project.project_id, file: opts.output, nodes: state.nodes.length, links: state.links.length });
  ctx.out.success(`Wrote lab ${project.name} (${state.nodes.length} nodes, ${state.links.length} links) to ${opts.output}`);
}
