import type { Context } from '../../cli/context.js';
import { findProfile } from '../../client/profiles.js';

/** Saves `projectRef` (or clears it, when undefined) as the active profile's default project. */
export async function setDefaultProject(ctx: Context, projectRef: string | undefined): Promise<string> {
  const store = await ctx.profileStore();
  const name = ctx.profile().name;
  const profile = findProfile(store.data(), name)!;
  store.save({ ...profile, defaultProject: projectRef });
  return name;
}
