import { LOCAL_PROFILE, maskProfile, PASSWORD_MASK, type Profile } from '../../client/profiles.js';
import type { Style } from '../../render/style.js';
import { renderFields, renderTable } from '../../render/table.js';

/** A profile as printed: password masked, plus whether it is the active one and built in. */
export interface ProfileView extends Profile {
  active: boolean;
  builtIn: boolean;
}

/** The printable view of a profile (the password is never included, only its mask). */
export function profileView(profile: Profile, activeName: string): ProfileView {
  const { name, url, api, user, password, caFile, fingerprint, defaultProject, defaultProjectName } = maskProfile(profile);
  return { name, url, api, user, password, caFile, fingerprint, defaultProject, defaultProjectName, active: name === activeName, builtIn: name === LOCAL_PROFILE.name };
}

/** The default project as saved: its name when `project use` kept it beside the UUID, else the saved reference. */
function defaultProjectCell(view: ProfileView, withId: boolean): string {
  if (!view.defaultProject) return '-';
  if (!view.defaultProjectName) return view.defaultProject;
  return withId ? `${view.defaultProjectName} (${view.defaultProject})` : view.defaultProjectName;
}

/** The GNS3 API the profile's server speaks: saved by `profile add`; the built-in local daemon speaks v2; `?` not yet known. */
function apiCell(view: ProfileView): string {
  return view.api ?? (view.builtIn && view.url === LOCAL_PROFILE.url ? 'v2' : '?');
}

/** Profiles as a table; the active one is marked with `*`. */
export function profileTable(views: readonly ProfileView[], style: Style): string {
  return renderTable(views, [
    { header: '', value: (p) => (p.active ? '*' : ' ') },
    { header: 'name', value: (p) => p.name, color: (cell, p) => (p.active ? style.bold(cell) : cell) },
    { header: 'url', value: (p) => p.url },
    { header: 'api', value: apiCell },
    { header: 'user', value: (p) => p.user ?? '-' },
    { header: 'default project', value: (p) => defaultProjectCell(p, false) },
  ], style);
}

/** One profile as aligned fields; `urlNote` says where an overriding URL came from. */
export function profileDetails(view: ProfileView, style: Style, urlNote?: string): string {
  return renderFields([
    ['name', view.name + (view.builtIn ? ' (built in)' : '')],
    ['url', view.url + (urlNote ? ` (${urlNote})` : '')],
    ['api', apiCell(view)],
    ['user', view.user ?? '-'],
    ['password', view.password === undefined ? '-' : PASSWORD_MASK],
    ['TLS trust', view.fingerprint ? `pinned SHA256 ${view.fingerprint}` : view.caFile ? `CA file ${view.caFile}` : 'system CAs'],
    ['default project', defaultProjectCell(view, true)],
    ['active', view.active ? 'yes' : 'no'],
  ], style);
}
