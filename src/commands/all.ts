import type { NounCommand } from './noun-command.js';
import { applianceCommand } from './appliance/index.js';
import { captureCommand } from './capture/index.js';
import { completionCommand } from './completion/index.js';
import { computeCommand } from './compute/index.js';
import { daemonCommand } from './daemon/index.js';
import { demoCommand } from './demo/index.js';
import { eventsCommand } from './events/index.js';
import { imageCommand } from './image/index.js';
import { labCommand } from './lab/index.js';
import { linkCommand } from './link/index.js';
import { loginCommand } from './login/index.js';
import { logoutCommand } from './logout/index.js';
import { nodeCommand } from './node/index.js';
import { poolCommand } from './pool/index.js';
import { profileCommand } from './profile/index.js';
import { projectCommand } from './project/index.js';
import { switchCommand } from './switch/index.js';
import { templateCommand } from './template/index.js';
import { versionCommand } from './version/index.js';

/**
 * Every noun's builder in one module, for the command lines that need them all (help, a
 * typo, completion): the bundle makes it one file instead of one per noun
 * (scripts/bundle/noun-files.mjs). Keyed by the names of NOUNS in index.ts.
 */
export const NOUN_COMMANDS: Readonly<Record<string, NounCommand>> = {
  daemon: daemonCommand,
  profile: profileCommand,
  login: loginCommand,
  logout: logoutCommand,
  project: projectCommand,
  node: nodeCommand,
  template: templateCommand,
  appliance: applianceCommand,
  link: linkCommand,
  switch: switchCommand,
  image: imageCommand,
  compute: computeCommand,
  pool: poolCommand,
  capture: captureCommand,
  lab: labCommand,
  events: eventsCommand,
  demo: demoCommand,
  version: versionCommand,
  completion: completionCommand,
};
