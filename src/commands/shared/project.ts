import { Option } from 'commander';
import type { Context } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import { findProject, type Project } from '../../client/projects.js';

/** The `-p, --project` option that commands acting inside a project share. */
export function projectOption(): Option {
  return new Option('-p, --project <project>', "project name or UUID (default: the profile's default project)");
}

/** The project a command acts on: the one given, else the profile's default project (see `project use`). */
export async function resolveProject(ctx: Context, given?: string): Promise<Project> {
  const ref = given ?? ctx.profile().defaultProject;
  if (!ref) throw new UsageError("no project given: pass --project P, or choose one with 'emuctl project use P'");
  return findProject(await ctx.api(), ref);
}
