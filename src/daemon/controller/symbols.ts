import { NotFoundError } from '../errors.js';

/** One built-in symbol: its GNS3-style id, its file name, its theme, its size and its SVG (emuctl's own drawings). */
export interface SymbolEntry {
  symbol_id: string;
  filename: string;
  theme: string;
  builtin: true;
  width: number;
  height: number;
  svg: string;
}

const THEME = 'Classic';
const STROKE = 'stroke="#1f3b57" stroke-width="2" stroke-linejoin="round"';

function svg(width: number, height: number, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${body}</svg>\n`;
}

const SYMBOLS: Omit<SymbolEntry, 'symbol_id' | 'theme' | 'builtin'>[] = [
  {
    filename: 'computer.svg', width: 60, height: 52,
    svg: svg(60, 52, `<rect x="6" y="3" width="48" height="32" rx="3" fill="#dfe9f3" ${STROKE}/><rect x="11" y="8" width="38" height="22" fill="#5b87b0"/><path d="M24 35 L22 44 H38 L36 35" fill="#b8c7d6" ${STROKE}/><rect x="14" y="44" width="32" height="5" rx="2" fill="#b8c7d6" ${STROKE}/>`),
  },
  {
    filename: 'vpcs_guest.svg', width: 60, height: 52,
    svg: svg(60, 52, `<rect x="6" y="3" width="48" height="32" rx="3" fill="#e3efe1" ${STROKE}/><rect x="11" y="8" width="38" height="22" fill="#20302a"/><path d="M15 14 L21 19 L15 24" fill="none" stroke="#7be07b" stroke-width="2"/><path d="M24 25 H33" stroke="#7be07b" stroke-width="2"/><rect x="14" y="41" width="32" height="8" rx="2" fill="#b8c7a8" ${STROKE}/><path d="M30 35 V41" ${STROKE}/>`),
  },
  {
    filename: 'ethernet_switch.svg', width: 60, height: 36,
    svg: svg(60, 36, `<rect x="2" y="4" width="56" height="28" rx="4" fill="#3f7cb5" ${STROKE}/><path d="M12 13 H42 M36 9 L42 13 L36 17 M48 23 H18 M24 19 L18 23 L24 27" fill="none" stroke="#ffffff" stroke-width="2.5"/>`),
  },
  {
    filename: 'hub.svg', width: 60, height: 30,
    svg: svg(60, 30, `<rect x="2" y="4" width="56" height="22" rx="3" fill="#8aa5bf" ${STROKE}/><g fill="#1f3b57"><rect x="8" y="14" width="6" height="6"/><rect x="19" y="14" width="6" height="6"/><rect x="30" y="14" width="6" height="6"/><rect x="41" y="14" width="6" height="6"/></g><circle cx="52" cy="10" r="2" fill="#7be07b"/>`),
  },
  {
    filename: 'router.svg', width: 60, height: 40,
    svg: svg(60, 40, `<ellipse cx="30" cy="26" rx="27" ry="11" fill="#2f6a9e" ${STROKE}/><rect x="3" y="14" width="54" height="12" fill="#3f7cb5"/><ellipse cx="30" cy="14" rx="27" ry="11" fill="#5b9bd5" ${STROKE}/><path d="M14 14 H24 M20 10 L24 14 L20 18 M46 14 H36 M40 10 L36 14 L40 18" fill="none" stroke="#ffffff" stroke-width="2.5"/>`),
  },
  {
    filename: 'cloud.svg', width: 70, height: 44,
    svg: svg(70, 44, `<path d="M18 40 C6 40 3 28 12 24 C9 12 24 6 31 13 C36 3 54 5 55 18 C66 18 68 38 54 40 Z" fill="#e8eef5" ${STROKE}/>`),
  },
  {
    filename: 'qemu_guest.svg', width: 60, height: 52,
    svg: svg(60, 52, `<rect x="6" y="6" width="48" height="40" rx="4" fill="#f3e8d8" ${STROKE}/><rect x="12" y="12" width="36" height="28" rx="2" fill="#d9823b"/><path d="M20 19 L25 33 L30 19 M33 33 V19 L38 26 L43 19 V33" fill="none" stroke="#ffffff" stroke-width="2.5"/>`),
  },
];

/** The built-in symbols, with ids as GNS3 names them (`:/symbols/classic/<file>`). */
export const BUILTIN_SYMBOLS: SymbolEntry[] = SYMBOLS.map((s) => ({ symbol_id: `:/symbols/classic/${s.filename}`, theme: THEME, builtin: true, ...s }));

/** The symbol every node falls back to, as in GNS3. */
export const DEFAULT_SYMBOL = ':/symbols/computer.svg';

/** GNS3's default symbols per role (`/v2/default_symbols`), for the one theme emuctl draws. */
export const DEFAULT_SYMBOLS: Record<string, Record<string, string>> = {
  [THEME]: {
    cloud: ':/symbols/classic/cloud.svg',
    ethernet_switch: ':/symbols/classic/ethernet_switch.svg',
    ethernet_hub: ':/symbols/classic/hub.svg',
    router: ':/symbols/classic/router.svg',
    computer: ':/symbols/classic/computer.svg',
    vpcs_guest: ':/symbols/classic/vpcs_guest.svg',
    qemu_guest: ':/symbols/classic/qemu_guest.svg',
  },
};

/** The symbol with that id; GNS3's short ids (`:/symbols/hub.svg`) and bare file names find the classic one. */
export function findSymbol(id: string): SymbolEntry | undefined {
  const file = id.split('/').pop() ?? id;
  return BUILTIN_SYMBOLS.find((s) => s.symbol_id === id) ?? BUILTIN_SYMBOLS.find((s) => s.filename === file);
}

/** The symbol with that id, or NotFoundError. */
export function getSymbol(id: string): SymbolEntry {
  const symbol = findSymbol(id);
  if (!symbol) throw new NotFoundError(`Symbol ${id} doesn't exist`);
  return symbol;
}

/** Width and height a node gets from its symbol (an unknown symbol measures as the computer, as in GNS3). */
export function symbolSize(id: string | null | undefined): { width: number; height: number } {
  const symbol = findSymbol(id ?? DEFAULT_SYMBOL) ?? findSymbol(DEFAULT_SYMBOL)!;
  return { width: symbol.width, height: symbol.height };
}
