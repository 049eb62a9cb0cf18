import type { Context } from '../../cli/context.js';
import type { ApiClient } from '../../client/api.js';
import { selectProfile, serverOf } from '../../client/active-profile.js';

/**
 * The API client of the profile's server, leaving out the global --url, --ca-file and
 * --fingerprint: `compute add` takes them for the new compute (as `profile add` does), so
 * the controller comes from --profile, EMUCTL_PROFILE, EMUCTL_URL (EMUCTL_CA_FILE,
 * EMUCTL_FINGERPRINT) or the current profile.
 */
export async function controllerApi(ctx: Context): Promise<ApiClient> {
  const profile = selectProfile(ctx.profilesData(), { profile: ctx.globals.profile, env: ctx.env });
  return ctx.apiFor({ ...serverOf(profile), session: ctx.sessionFor(profile) });
}
