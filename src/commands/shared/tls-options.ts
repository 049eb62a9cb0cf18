import { resolve } from 'node:path';
import type { Context } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import { checkedFingerprint } from '../../client/active-profile.js';
import { readCaFile } from '../../client/tls-agent.js';

/** The trust a command saves for an https server: an absolute CA file with its PEM text, or a pinned fingerprint. */
export interface SavedTrust {
  caFile?: string;
  caPem?: string;
  fingerprint?: string;
}

/**
 * The global --ca-file and --fingerprint as `profile add` and `compute add` take them (like --url):
 * for an https URL only, one or the other, the fingerprint canonical, the CA file readable PEM.
 */
export async function savedTrust(ctx: Context, url: string): Promise<SavedTrust> {
  const { caFile, fingerprint } = ctx.globals;
  if (caFile === undefined && fingerprint === undefined) return {};
  if (!url.startsWith('https:')) throw new UsageError('--ca-file and --fingerprint apply to https URLs only');
  if (caFile !== undefined && fingerprint !== undefined) throw new UsageError('give --ca-file or --fingerprint, not both: a pinned fingerprint replaces the CA check');
  if (fingerprint !== undefined) return { fingerprint: checkedFingerprint(fingerprint) };
  const path = resolve(caFile!);
  const caPem = readCaFile(path).toString('utf8');
  if (!caPem.includes('-----BEGIN CERTIFICATE-----')) throw new UsageError(`the CA file ${path} holds no PEM certificate`);
  return { caFile: path, caPem };
}
