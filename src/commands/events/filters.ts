import { InvalidArgumentError } from 'commander';

/** `--until ACTION[:NAME]`: the first event of that action (and object name) ends the command. */
export interface UntilSpec {
  action: string;
  name?: string;
}

const ACTION_PATTERN = /^[A-Za-z0-9_*-]+(\.[A-Za-z0-9_*-]+)*$/;

/** Parses `--type node.updated,link.*` for commander: action names, `*` matching any run of characters. */
export function parseTypes(value: string): string[] {
  const types = value.split(',').map((t) => t.trim()).filter(Boolean);
  if (types.length === 0 || !types.every((t) => ACTION_PATTERN.test(t))) throw new InvalidArgumentError('expected actions separated by commas, e.g. node.updated,link.*');
  return types;
}

/** Parses `--until node.updated:PC1` for commander. */
export function parseUntil(value: string): UntilSpec {
  const i = value.indexOf(':');
  const action = (i < 0 ? value : value.slice(0, i)).trim();
  const name = i < 0 ? undefined : value.slice(i + 1);
  if (!ACTION_PATTERN.test(action) || name === '') throw new InvalidArgumentError('expected ACTION or ACTION:NAME, e.g. node.updated:PC1');
  return { action, name };
}

/** Whether an action matches a pattern such as `link.*`. */
export function actionMatches(pattern: string, action: string): boolean {
  if (!pattern.includes('*')) return pattern === action;
  const source = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*');
  return new RegExp(`^${source}$`).test(action);
}

/** What `emuctl events` shows and when it stops. */
export interface EventSelection {
  types?: string[];
  until?: UntilSpec;
  count?: number;
  pings: boolean;
}

/** Decides, event by event, what to print and when to stop; pings never count. */
export class EventGate {
  private counted = 0;

  constructor(private readonly selection: EventSelection) {}

  /** Whether to print this event. */
  shows(action: string): boolean {
    if (action === 'ping') return this.selection.pings;
    const { types } = this.selection;
    return !types || types.some((t) => actionMatches(t, action));
  }

  /** Records an event that was printed or matched; true when the command is done. */
  done(action: string, name: string | undefined, shown: boolean): boolean {
    if (action === 'ping') return false;
    const { until, count } = this.selection;
    if (shown && count !== undefined && ++this.counted >= count) return true;
    return !!until && actionMatches(until.action, action) && (until.name === undefined || until.name === name);
  }
}
