import type { COMPUTE_CREATE_SCHEMA } from '../schemas/compute.js';
import type { FromSchema } from '../schemas/validation.js';
import type { ComputeEndpoint } from './compute-http.js';

/** A compute as the controller knows it (the password never leaves the registry). */
export interface ComputeRecord extends ComputeEndpoint {
  connected: boolean;
  last_error: string | null;
  capabilities: Record<string, unknown>;
  cpu_usage_percent: number | null;
  memory_usage_percent: number | null;
}

/** A compute as `POST /v2/computes` takes it. */
export type ComputeCreate = FromSchema<typeof COMPUTE_CREATE_SCHEMA>;
