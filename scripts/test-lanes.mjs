// Which test files may run at the same time. Two files that name an overlapping fixed port range
// (`'25100-25199'` or `[25100, 25199]`, given to a daemon as EMUCTL_*_PORT_RANGE) share a group and run one after the
// other; groups run side by side. A file that compares host-wide state (the whole iptables rule
// set, every interface with a prefix) says so on a line of its own:
//   // test-runner: serial (why)
// and runs alone, after every group. A file whose ranges open no port says
//   // test-runner: ranges are data (why)

const RANGES = [/['"`](\d{4,5})-(\d{4,5})['"`]/g, /\[(\d{4,5}), (\d{4,5})\]/g];
const SERIAL = /^\s*\/\/ test-runner: serial\b/m;
// A file whose ranges are data (settings parsing, say) and open no port says so the same way.
const RANGES_ARE_DATA = /^\s*\/\/ test-runner: ranges are data\b/m;

/** The fixed port ranges a test file's text names. */
export function portRanges(text) {
  const ranges = [];
  if (RANGES_ARE_DATA.test(text)) return ranges;
  for (const pattern of RANGES) {
    for (const m of text.matchAll(pattern)) {
      const low = Number(m[1]);
      const high = Number(m[2]);
      if (low >= 1024 && low <= high && high <= 65535) ranges.push([low, high]);
    }
  }
  return ranges;
}

export function isSerial(text) {
  return SERIAL.test(text);
}

/**
 * Splits `files` (name -> text) into groups that may run side by side, and the serial files.
 * Deterministic: groups keep the files' order, and come out in order of their first file.
 */
export function planLanes(files) {
  const names = [...files.keys()];
  const parent = new Map(names.map((n) => [n, n]));
  const root = (n) => {
    while (parent.get(n) !== n) n = parent.get(n);
    return n;
  };
  const serial = names.filter((n) => isSerial(files.get(n)));
  const parallel = names.filter((n) => !serial.includes(n));
  const claimed = parallel.flatMap((n) => portRanges(files.get(n)).map(([low, high]) => ({ n, low, high })));
  claimed.sort((a, b) => a.low - b.low);
  for (let i = 0; i < claimed.length; i++) {
    for (let j = i + 1; j < claimed.length && claimed[j].low <= claimed[i].high; j++) {
      const a = root(claimed[i].n);
      const b = root(claimed[j].n);
      if (a !== b) parent.set(b, a);
    }
  }
  const groups = new Map();
  for (const n of parallel) {
    const r = root(n);
    if (!groups.has(r)) groups.set(r, []);
    groups.get(r).push(n);
  }
  return { groups: [...groups.values()], serial };
}
