import { open, rename, unlink } from 'node:fs/promises';

/** Writes `target` so that readers only ever see the old or the new content: temp file, fsync, rename. */
export async function replaceFile(target: string, data: string | Buffer): Promise<void> {
  const temp = `${target}.${process.pid}.tmp`;
  const file = await open(temp, 'w', 0o644);
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
