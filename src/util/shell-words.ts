/** Why a line could not be split into words: a quote left open, or a backslash with nothing after it. */
export class ShellWordsError extends Error {
  constructor(readonly problem: 'quote' | 'backslash', readonly quote?: '"' | "'") {
    super(problem === 'quote' ? `unterminated ${quote} quote` : 'ends with a lone backslash');
  }
}

/**
 * Splits a line into words as a POSIX shell would (Python's shlex.split, which GNS3 uses), without
 * expanding anything: 'single' and "double" quotes and backslashes group, and `;`, `|`, `$(…)`, `&`
 * and `>` stay literal characters of the words. Nothing runs a shell over the result.
 */
export function splitShellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && i + 1 < line.length && '\\"$`\n'.includes(line[i + 1])) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      word ??= '';
    } else if (c === '\\') {
      if (i + 1 >= line.length) throw new ShellWordsError('backslash');
      word = (word ?? '') + line[++i];
    } else if (/\s/.test(c)) {
      if (word !== undefined) words.push(word);
      word = undefined;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (quote) throw new ShellWordsError('quote', quote);
  if (word !== undefined) words.push(word);
  return words;
}
