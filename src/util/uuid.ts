/** A UUID (8-4-4-4-12 hexadecimal digits, either case) as regular-expression text, to embed in larger patterns. */
export const UUID_TEXT = '[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}';

/** A whole string that is a UUID (JSON schemas use its `source`). */
export const UUID_PATTERN = new RegExp(`^${UUID_TEXT}$`);

/** True for a full UUID. */
export function isUuid(value: string): boolean {
  return UUID_PATTERN.test(value);
}
