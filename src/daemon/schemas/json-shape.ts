/** How deep JSON text may nest, and how many entries one array or object may hold. */
export interface JsonShapeLimits {
  maxDepth: number;
  maxItems: number;
}

const QUOTE = 0x22, BACKSLASH = 0x5c, COMMA = 0x2c, OPEN_ARRAY = 0x5b, CLOSE_ARRAY = 0x5d, OPEN_OBJECT = 0x7b, CLOSE_OBJECT = 0x7d;

/**
 * Why JSON text is beyond the limits (nesting deeper than maxDepth, an array or object with more than
 * maxItems entries), or undefined; `what` names the text in the message. One pass over the text
 * without parsing or recursing, so hostile text costs no more than its length.
 */
export function jsonShapeProblem(text: string, { maxDepth, maxItems }: JsonShapeLimits, what = 'JSON body'): string | undefined {
  const commas: number[] = [];
  const kinds: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < text.length && text.charCodeAt(i) !== QUOTE; i++) if (text.charCodeAt(i) === BACKSLASH) i++;
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (commas.length === maxDepth) return `${what} nests deeper than ${maxDepth} levels (the limit)`;
      commas.push(0);
      kinds.push(c);
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      commas.pop();
      kinds.pop();
    } else if (c === COMMA && commas.length > 0) {
      const top = commas.length - 1;
      if (++commas[top] >= maxItems) {
        return kinds[top] === OPEN_ARRAY ? `${what} has an array of more than ${maxItems} items (the limit)` : `${what} has an object with more than ${maxItems} keys (the limit)`;
      }
    }
  }
  return undefined;
}
