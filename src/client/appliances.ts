import { readFile } from 'node:fs/promises';
import { planAppliance, unsupportedReason, type ComputeFacts, type VersionPlan } from '../appliance/plan.js';
import { pickVersion } from '../appliance/appliance.js';
import { ApplianceFormatError, parseAppliance, type ApplianceFile } from '../appliance/schema.js';
import { applianceTemplate, type ControllerSymbols } from '../appliance/template.js';
import { apiPath, type ApiClient } from './api.js';
import { OperationError, UsageError } from './errors.js';
import { getCompute } from './computes.js';
import { listDockerImages, listImages } from './images.js';
import { createTemplate, type Template, type TemplateCreate } from './templates.js';

/** A `.gns3a` file that is not an appliance (exit 2 in `appliance check`). */
export class InvalidApplianceError extends UsageError {}

/** Reads and parses an appliance file; InvalidApplianceError (exit 2) when it is not one. */
export async function readApplianceFile(path: string): Promise<ApplianceFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new OperationError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
  }
  try {
    return parseAppliance(text);
  } catch (err) {
    if (err instanceof ApplianceFormatError) throw new InvalidApplianceError(`${path} is not a valid appliance: ${err.message}`);
    throw err;
  }
}

/** A call that a compute without that node type answers with 404: `fallback` then. */
async function unless404<T>(call: Promise<T>, fallback: T): Promise<T> {
  try {
    return await call;
  } catch (err) {
    if (err instanceof OperationError && err.status === 404) return fallback;
    throw err;
  }
}

/** What the compute offers: QEMU images, KVM platforms, docker images (only what the appliance's emulator needs). */
export async function computeFacts(api: ApiClient, computeId: string, file: ApplianceFile): Promise<ComputeFacts> {
  const compute = await getCompute(api, computeId);
  const facts: ComputeFacts = { computeId, images: [], kvm: [], dockerImages: [], nodeTypes: compute.capabilities?.node_types };
  if (file.emulator === 'qemu') {
    facts.images = await unless404(listImages(api, computeId), []);
    const caps = await unless404(api.get<{ kvm?: string[] }>(apiPath('computes', computeId, 'qemu', 'capabilities')), {});
    facts.kvm = Array.isArray(caps.kvm) ? caps.kvm : [];
  } else if (file.emulator === 'docker') {
    facts.dockerImages = (await listDockerImages(api, computeId)).map((i) => i.image);
  }
  return facts;
}

/** The appliance's versions checked against a compute. */
export async function checkAppliance(api: ApiClient, file: ApplianceFile, computeId: string): Promise<VersionPlan[]> {
  return planAppliance(file, await computeFacts(api, computeId, file));
}

/**
 * The controller's symbols: which ids exist (GET /v2/symbols; GNS3 serves `:/symbols/<file>`
 * as the classic theme's file of that name) and the Classic theme's defaults (GET /v2/default_symbols).
 */
export async function controllerSymbols(api: ApiClient): Promise<ControllerSymbols> {
  const symbols = await api.get<{ symbol_id: string; filename: string; builtin: boolean }[]>('symbols');
  const themes = await api.get<Record<string, Record<string, string>>>('default_symbols');
  const ids = new Set(symbols.map((s) => s.symbol_id));
  const builtinFiles = new Set(symbols.filter((s) => s.builtin).map((s) => s.filename));
  return {
    exists: (id) => ids.has(id) || (/^:\/symbols\/[^/]+$/.test(id) && builtinFiles.has(id.slice(':/symbols/'.length))),
    defaults: themes.Classic ?? {},
  };
}

/**
 * Creates the template GNS3 would create from the appliance on that compute. Nothing is
 * created when the version is unknown or ambiguous, an image is missing, or KVM is needed and
 * absent (OperationError 409 naming the reason).
 */
export async function installAppliance(api: ApiClient, file: ApplianceFile, opts: { version?: string; computeId: string }): Promise<{ template: Template; plan: VersionPlan }> {
  const unsupported = unsupportedReason(file);
  if (unsupported) throw new OperationError(unsupported);
  const plans = await checkAppliance(api, file, opts.computeId);
  const picked = pickVersion(plans.map((p) => p.version), opts.version);
  if (typeof picked === 'string') {
    const installable = plans.filter((p) => !p.problems.length).map((p) => p.version.name);
    throw new UsageError(picked || `${file.name} has ${plans.length} versions: choose one with --appliance-version (installable here: ${installable.join(', ') || 'none'})`);
  }
  const plan = plans.find((p) => p.version === picked)!;
  if (plan.problems.length) {
    const kvmOnly = plan.kvm === 'require' && plan.problems.length === 1 && plan.problems[0].includes('requires KVM');
    throw new OperationError(`cannot install ${file.name} ${picked.name}: ${plan.problems.join('; ')}`, kvmOnly ? 409 : undefined);
  }
  const body = applianceTemplate(file, picked, plan.matches, opts.computeId, await controllerSymbols(api)) as TemplateCreate;
  return { template: await createTemplate(api, body), plan };
}
