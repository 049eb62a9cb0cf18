import { randomBytes } from 'node:crypto';
import { open, rename, unlink } from 'node:fs/promises';

/**
 * Writes `target` so that readers only ever see the old or the new content: temp file, fsync, rename.
 * The file is private (0600); the temporary file is created new, so a link planted at its name is never followed.
 */
export async function replaceFile(target: string, data: string | Buffer): Promise<void> {
  const temp = `${target}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const file = await open(temp, 'wx', 0o600);
  try {
    await file.writeFile(data);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temp, target).catch(async (err) => {
    await unlink(temp).catch(() => undefined);
    throw err;
  });
}
