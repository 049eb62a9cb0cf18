import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import { withTransferSpinner } from '../../render/transfer-spinner.js';
import { streamServer } from '../shared/streams.js';
import { projectDetails, projectLabel } from './render.js';

/** Options of `project import`. */
export interface ProjectImportOptions {
  file: string;
  /** Name of the new project; the archive's when absent (a taken name gets `-1`, `-2`…). */
  name?: string;
}

/** `emuctl project import FILE [--name N]`. */
export function projectImportCommand(f: Factory, run = runProjectImport): Command {
  return new Command('import')
    .description('make a new project from a .gns3project archive (exported by emuctl or GNS3)')
    .argument('<file>', 'the archive')
    .option('-n, --name <name>', "name of the new project (default: the archive's)")
    .action(async (file: string, flags: { name?: string }, cmd: Command) => run({ file, name: flags.name }, await f.context(cmd)));
}

/** Uploads the archive (POST /v2/projects/{new_id}/import); the new project is closed, as GNS3 leaves it. */
export async function runProjectImport(opts: ProjectImportOptions, ctx: Context): Promise<void> {
  // Loaded here, not with the project noun: `project list` and the other verbs do without them.
  const [{ stat }, { uploadProjectArchive }] = await Promise.all([import('node:fs/promises'), import('../../client/project-archives.js')]);
  const info = await stat(opts.file).catch(() => undefined);
  if (!info?.isFile()) throw new UsageError(`${opts.file} is not a file`);
  const project = await withTransferSpinner(ctx.out, `Importing ${opts.file}`, info.size, (progress) =>
    uploadProjectArchive(streamServer(ctx), opts.file, opts.name, progress));
  ctx.out.result(project, () => projectDetails(project, ctx.out.style));
  ctx.out.success(`Imported project ${projectLabel(project)}; open it with 'emuctl project open ${project.name}'`);
}
