/** Retries `check` every second until it passes or `ms` have gone by; then the last failure is thrown, named by `what`. */
export async function eventually<T>(what: string, ms: number, check: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`${what} within ${ms / 1000} s: ${(err as Error).message}`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}
