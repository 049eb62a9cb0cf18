// Telnet commands inside a console byte stream (RFC 854): IAC sequences to remove.
const IAC = 255;
const SB = 250;
const SE = 240;

/**
 * Removes telnet negotiation (IAC …) from what the console sends: it is protocol, not screen
 * output, and a terminal would show it as garbage. Everything else passes through untouched.
 * Nothing is answered: VPCS drops every read that starts with IAC, so an answer could swallow
 * the user's next keystrokes.
 */
export class TelnetFilter {
  private state: 'data' | 'iac' | 'option' | 'sub' | 'subIac' = 'data';

  /** The chunk without telnet commands (state carries over between chunks). */
  filter(chunk: Buffer): Buffer {
    if (this.state === 'data' && !chunk.includes(IAC)) return chunk;
    const out: number[] = [];
    for (const byte of chunk) {
      switch (this.state) {
        case 'data':
          if (byte === IAC) this.state = 'iac';
          else out.push(byte);
          break;
        case 'iac':
          if (byte === IAC) { out.push(IAC); this.state = 'data'; }
          else if (byte === SB) this.state = 'sub';
          else this.state = byte >= 251 ? 'option' : 'data'; // WILL/WONT/DO/DONT carry one option byte.
          break;
        case 'option':
          this.state = 'data';
          break;
        case 'sub':
          if (byte === IAC) this.state = 'subIac';
          break;
        case 'subIac':
          this.state = byte === SE ? 'data' : 'sub';
          break;
      }
    }
    return Buffer.from(out);
  }
}
