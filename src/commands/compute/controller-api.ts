import type { Context } from '../../cli/context.js';
import type { ApiClient } from '../../client/api.js';
import { selectProfile, unreachableHint } from '../../client/active-profile.js';

/**
 * The API client of the profile's server, leaving out the global --url: `compute add`
 * takes --url as the new compute's URL (as `profile add` does), so the controller
 * comes from --profile, EMUCTL_PROFILE, EMUCTL_URL or the current profile.
 */
export async function controllerApi(ctx: Context): Promise<ApiClient> {
  const profile = selectProfile(ctx.profilesData(), { profile: ctx.globals.profile, env: ctx.env });
  return ctx.apiFor({ url: profile.url, user: profile.user, password: profile.password, unreachableHint: unreachableHint(profile.url) });
}
