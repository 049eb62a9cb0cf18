import { Command } from 'commander';
import { resolve } from 'node:path';
import type { Context, Factory } from '../../cli/context.js';
import { findProject } from '../../client/projects.js';
import { formatBytes } from '../../render/progress.js';
import { withTransferSpinner } from '../../render/transfer-spinner.js';
import { streamServer } from '../shared/streams.js';
import { projectLabel } from './render.js';

/** Options of `project export`. */
export interface ProjectExportOptions {
  project: string;
  /** Where to save the archive. */
  output: string;
  includeSnapshots: boolean;
  resetMacAddresses: boolean;
  /** Store the files instead of deflating them. */
  noCompression: boolean;
}

/** `emuctl project export P -o FILE [--include-snapshots] [--reset-mac-addresses] [--store]`. */
export function projectExportCommand(f: Factory, run = runProjectExport): Command {
  return new Command('export')
    .description('save a project as a portable .gns3project archive (GNS3 2.2 format)')
    .argument('<project>', 'project name, UUID or unique UUID prefix')
    .requiredOption('-o, --output <file>', 'the archive to write (e.g. lab.gns3project)')
    .option('--include-snapshots', "also put the project's snapshots in the archive")
    .option('--reset-mac-addresses', 'clear MAC addresses, so that an import gets new ones')
    .option('--store', 'store the files instead of compressing them')
    .action(async (project: string, flags: { output: string; includeSnapshots?: boolean; resetMacAddresses?: boolean; store?: boolean }, cmd: Command) =>
      run({ project, output: flags.output, includeSnapshots: flags.includeSnapshots === true, resetMacAddresses: flags.resetMacAddresses === true, noCompression: flags.store === true }, await f.context(cmd)));
}

/** Downloads the project's archive (GET /v2/projects/{project_id}/export) into the file. */
export async function runProjectExport(opts: ProjectExportOptions, ctx: Context): Promise<void> {
  // Loaded here, not with the project noun: `project list` and the other verbs do without it.
  const { downloadProjectArchive } = await import('../../client/project-archives.js');
  const project = await findProject(await ctx.api(), opts.project);
  const target = resolve(opts.output);
  const bytes = await withTransferSpinner(ctx.out, `Exporting ${project.name}`, undefined, (progress) =>
    downloadProjectArchive(streamServer(ctx), project.project_id, target, {
      includeSnapshots: opts.includeSnapshots,
      resetMacAddresses: opts.resetMacAddresses,
      compression: opts.noCompression ? 'none' : 'zip',
    }, progress));
  ctx.out.result({ project_id: project.project_id, name: project.name, file: target, bytes });
  ctx.out.success(`Exported project ${projectLabel(project)} to ${target} (${formatBytes(bytes)})`);
}
