import type { Context } from '../../cli/context.js';
import { findProfile } from '../../client/profiles.js';
import type { Project } from '../../client/projects.js';

/** Saves `project` (its UUID and name) as the active profile's default project, or clears it when undefined. */
export async function setDefaultProject(ctx: Context, project: Project | undefined): Promise<string> {
  const store = await ctx.profileStore();
  const name = ctx.profile().name;
  const profile = findProfile(store.data(), name)!;
  store.save({ ...profile, defaultProject: project?.project_id, defaultProjectName: project?.name });
  return name;
}
