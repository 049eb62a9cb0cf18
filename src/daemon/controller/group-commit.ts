/** The changes that go to disk in one write, and the requests waiting for it. */
interface Batch {
  undos: (() => void)[];
  promise: Promise<void>;
  resolve(): void;
  reject(err: unknown): void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (err: unknown) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  // A batch nobody waits on (a change without a caller) must not be an unhandled rejection.
  promise.catch(() => {});
  return { undos: [], promise, resolve, reject };
}

/**
 * Group commit for one file: at most one write in flight; changes made meanwhile go into the next
 * write, and each change is acknowledged only once a write that contains it is on disk.
 * `write` must take its snapshot of the state synchronously, before its first await: a change
 * belongs to the write whose snapshot was taken after it was applied.
 *
 * A failed write undoes, newest first, every change not yet on disk: those of the failed write and
 * those applied after its snapshot (they may build on the failed ones: a link to a node whose
 * creation is undone). Each of their requests fails with the write's error.
 */
export class GroupCommit {
  private next: Batch | null = null;
  private writing: Promise<void> | null = null;

  constructor(private readonly write: () => Promise<void>, private readonly failed: (err: unknown) => unknown = (err) => err) {}

  /** Joins the next write; `undo` reverts the change (in memory) if that write fails. */
  commit(undo?: () => void): Promise<void> {
    this.next ??= newBatch();
    if (undo) this.next.undos.push(undo);
    const { promise } = this.next;
    if (!this.writing) this.start();
    return promise;
  }

  /** Resolves once nothing is pending (every change written, or undone). */
  async idle(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private start(): void {
    const batch = this.next!;
    this.next = null;
    this.writing = this.run(batch).finally(() => {
      this.writing = null;
      if (this.next) this.start();
    });
  }

  private async run(batch: Batch): Promise<void> {
    try {
      await this.write();
    } catch (err) {
      const later = this.next;
      this.next = null;
      const error = this.failed(err);
      for (const b of later ? [later, batch] : [batch]) {
        for (const undo of b.undos.reverse()) {
          try {
            undo();
          } catch {
            // an undo that fails leaves the others to run
          }
        }
        b.reject(error);
      }
      return;
    }
    batch.resolve();
  }
}
