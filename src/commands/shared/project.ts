import { Option } from 'commander';
import type { Context } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import type { ApiClient } from '../../client/api.js';
import type { Profile } from '../../client/profiles.js';
import { findProject, getProjectIfAny, isNotFound, type Project } from '../../client/projects.js';
import { isUuid } from '../../util/uuid.js';

/** The `-p, --project` option that commands acting inside a project share. */
export function projectOption(): Option {
  return new Option('-p, --project <project>', "project name or UUID (default: the profile's default project)");
}

/** What a command needs of a project to act inside it. */
export type ProjectRef = Pick<Project, 'project_id' | 'name'>;

const NO_PROJECT = "no project given: pass --project P, or choose one with 'emuctl project use P'";

/** The project a command acts on: the one given, else the profile's default project (see `project use`). */
export async function resolveProject(ctx: Context, given?: string): Promise<Project> {
  if (given !== undefined) return findProject(await ctx.api(), given);
  const profile = ctx.profile();
  if (!profile.defaultProject) throw new UsageError(NO_PROJECT);
  const api = await ctx.api();
  // One small request instead of the whole list, when the profile holds a UUID.
  const byId = isUuid(profile.defaultProject) ? await getProjectIfAny(api, profile.defaultProject) : undefined;
  return byId ?? findDefaultByName(api, profile);
}

/**
 * Runs `read` in the project a command reads from. When that is the default project and
 * the profile holds its UUID, `read` gets it at once, with no request to find the project;
 * if `read` then fails with a 404 because that project is gone, the project is found by the
 * name the profile kept and `read` runs again. For reads only, since `read` may run twice.
 */
export async function readInProject<T>(ctx: Context, given: string | undefined, read: (project: ProjectRef) => Promise<T>): Promise<T> {
  const profile = ctx.profile();
  const remembered = given === undefined && profile.defaultProject && isUuid(profile.defaultProject)
    ? { project_id: profile.defaultProject, name: profile.defaultProjectName ?? profile.defaultProject }
    : undefined;
  if (!remembered) return read(await resolveProject(ctx, given));
  const api = await ctx.api();
  try {
    return await read(remembered);
  } catch (err) {
    // A 404 from inside a project that still exists is the reader's own answer.
    if (!isNotFound(err) || (await getProjectIfAny(api, remembered.project_id))) throw err;
  }
  return read(await findDefaultByName(api, profile));
}

/** The default project by the name kept beside its UUID, or by the saved reference itself (name, UUID or prefix). */
function findDefaultByName(api: ApiClient, profile: Profile): Promise<Project> {
  return findProject(api, profile.defaultProjectName ?? profile.defaultProject!);
}
