import { UnavailableError } from '../errors.js';
import type { ComputeEndpoint } from './compute-http.js';

/** What the gate reads of a compute: its name and what its notification stream last found. */
interface WatchedCompute extends ComputeEndpoint {
  connected: boolean;
  last_error: string | null;
}

/**
 * Lets calls through to a remote compute only while it is not known to be disconnected: while its
 * notification stream says it is gone, a call fails at once with 503 instead of waiting for its
 * time-out, and calls under way when it goes end with that 503 too. A compute not tried yet
 * (no `last_error`) is let through: the call itself finds out.
 */
export class ComputeGate {
  private calls = new AbortController();

  constructor(private readonly compute: WatchedCompute) {}

  /** The signal to make a call with; UnavailableError while the compute is known disconnected. */
  enter(): AbortSignal {
    if (!this.compute.connected && this.compute.last_error !== null) throw this.unavailable();
    return this.calls.signal;
  }

  /** The compute was found disconnected: the calls under way end with 503. */
  disconnected(): void {
    const calls = this.calls;
    this.calls = new AbortController();
    calls.abort(this.unavailable());
  }

  private unavailable(): UnavailableError {
    const { name, compute_id, last_error } = this.compute;
    return new UnavailableError(`compute ${name} (${compute_id}) is not connected: ${last_error ?? 'its notification stream is down'}; retry once it reconnects`);
  }
}
