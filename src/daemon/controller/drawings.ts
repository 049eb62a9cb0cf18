import { randomUUID } from 'node:crypto';
import { ConflictError } from '../errors.js';
import { Drawing, DRAWING_DEFAULTS, type DrawingFields } from './drawing.js';
import type { ControllerEvents } from './events.js';
import type { Lab } from './lab.js';
import type { DRAWING_SCHEMA } from '../schemas/project-extras.js';
import type { FromSchema } from '../schemas/validation.js';

/** A drawing create or update body, as DRAWING_SCHEMA accepts it. */
export type DrawingCreate = FromSchema<typeof DRAWING_SCHEMA>;

/** Adds, changes and removes the drawings of an opened project; they live in its .gns3 file, and a change the file did not take is undone. */
export class DrawingManager {
  constructor(private readonly deps: { events: ControllerEvents }) {}

  async create(lab: Lab, body: DrawingCreate): Promise<Drawing> {
    const id = body.drawing_id ?? randomUUID();
    if (lab.drawings.has(id)) throw new ConflictError(`Drawing ID ${id} already exists`);
    const drawing = new Drawing(id, lab.project.id, pickFields(body));
    lab.drawings.set(id, drawing);
    await lab.save([drawing], () => lab.drawings.delete(id));
    this.deps.events.publish('drawing.created', drawing.toJSON(), lab.project.id);
    return drawing;
  }

  async update(lab: Lab, drawing: Drawing, body: DrawingCreate): Promise<Drawing> {
    const before = drawing.fields;
    drawing.fields = pickFields(body, drawing.fields);
    await lab.save([drawing], () => (drawing.fields = before));
    this.deps.events.publish('drawing.updated', drawing.toJSON(), lab.project.id);
    return drawing;
  }

  /** Deletes a drawing; a locked one stays (409), as in GNS3. */
  async remove(lab: Lab, drawing: Drawing): Promise<void> {
    if (drawing.fields.locked) throw new ConflictError(`Drawing ID ${drawing.id} cannot be deleted because it is locked`);
    if (lab.drawings.get(drawing.id) !== drawing) return;
    lab.drawings.delete(drawing.id);
    await lab.save([], () => lab.drawings.set(drawing.id, drawing));
    this.deps.events.publish('drawing.deleted', drawing.toJSON(), lab.project.id);
  }
}

/** Restores a drawing from a topology file entry (project open); a field that is missing or wrong keeps its default. */
export function restoreDrawing(lab: Lab, entry: Record<string, unknown>): void {
  const id = typeof entry.drawing_id === 'string' ? entry.drawing_id : randomUUID();
  lab.drawings.set(id, new Drawing(id, lab.project.id, pickFields(entry)));
}

/** The drawing fields of `source`, each one that is missing (or of the wrong type) taken from `base`. */
function pickFields(given: object, base: DrawingFields = DRAWING_DEFAULTS): DrawingFields {
  const source = given as Record<string, unknown>;
  const out = { ...base } as Record<string, unknown>;
  for (const [key, fallback] of Object.entries(base)) {
    if (typeof source[key] === typeof fallback) out[key] = source[key];
  }
  return out as unknown as DrawingFields;
}
