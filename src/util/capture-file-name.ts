/**
 * The rule for a capture file name, shared by the CLI (which checks before it sends) and the daemon
 * (which checks where the name enters): a file name in the project's captures directory, never a
 * path. Not empty or ".", no "/", "\", ".." or NUL.
 */
export function isPlainCaptureFileName(name: string): boolean {
  return name !== '' && name !== '.' && !/[/\\\0]/.test(name) && !name.includes('..');
}
