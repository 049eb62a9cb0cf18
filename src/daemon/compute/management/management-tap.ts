import { existsSync } from 'node:fs';
import { runHostTool } from '../host-access.js';
import { MGMT_TAP_PREFIX } from '../host-interface-policy.js';
import type { ManagementBridge } from './management-bridge.js';
import { shortId } from './management-bridge.js';

/** A QEMU node's management TAP on the host (12 characters). */
export function mgmtTapName(nodeId: string): string {
  return `${MGMT_TAP_PREFIX}${shortId(nodeId)}`;
}

/**
 * Makes the node's management TAP, journalled in the network's journal before it exists, as a port
 * of the network's bridge. It is persistent (QEMU opens it by name, with no script) and owned by
 * this daemon's user, so a QEMU of that user may open it. Returns its name.
 */
export async function makeManagementTap(network: ManagementBridge, nodeId: string): Promise<string> {
  const tap = mgmtTapName(nodeId);
  await network.journalled({ kind: 'link', name: tap }, async () => {
    // One left by a VM of this node that is gone goes first.
    if (existsSync(`/sys/class/net/${tap}`)) await runHostTool('ip', ['link', 'delete', 'dev', tap]);
    await runHostTool('ip', ['tuntap', 'add', 'dev', tap, 'mode', 'tap', 'user', String(process.getuid?.() ?? 0)]);
  });
  try {
    await runHostTool('ip', ['link', 'set', 'dev', tap, 'master', network.bridge, 'up']);
  } catch (err) {
    await removeManagementTap(nodeId);
    throw err;
  }
  return tap;
}

/** Removes the node's management TAP if it is there. */
export async function removeManagementTap(nodeId: string): Promise<void> {
  const tap = mgmtTapName(nodeId);
  if (existsSync(`/sys/class/net/${tap}`)) await runHostTool('ip', ['link', 'delete', 'dev', tap]).catch(() => undefined);
}
