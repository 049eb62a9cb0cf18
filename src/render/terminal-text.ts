/** A colour or weight escape (SGR): the only escape sequence emuctl's own styles write. */
const SGR = /\u001b\[[0-9;]*m/y;

/**
 * Characters a terminal acts on instead of showing: C0 controls but tab and newline (ESC, CR, BEL,
 * backspace…), DEL, the C1 controls (0x9b is a one-byte CSI), the line and paragraph separators
 * and the bidirectional overrides and isolates that make text read differently from what it is.
 */
const ACTS_ON_TERMINAL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/**
 * Text made safe for a terminal: every character a terminal would act on is shown as a visible
 * escape (`\u001b`, `\u000d`, `\u202e`), so a name, message or log line from a server cannot clear the
 * screen, set the clipboard (OSC 52), plant a link (OSC 8), rewrite a line or reorder text.
 * With `keepColours`, colour escapes (SGR) pass, as emuctl's own styles use them.
 */
export function terminalSafe(text: string, keepColours: boolean): string {
  if (!ACTS_ON_TERMINAL.test(text)) return text;
  let out = '';
  for (let i = 0; i < text.length; ) {
    if (keepColours && text.charCodeAt(i) === 0x1b) {
      SGR.lastIndex = i;
      const sgr = SGR.exec(text);
      if (sgr) {
        out += sgr[0];
        i += sgr[0].length;
        continue;
      }
    }
    const c = text[i++];
    out += ACTS_ON_TERMINAL.test(c) ? visibleEscape(c) : c;
  }
  return out;
}

/** `\u001b` for ESC: readable, and a valid escape inside a JSON string, so --json output on a terminal still parses to the same value. */
function visibleEscape(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
}
