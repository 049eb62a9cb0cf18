export function portRanges(text: string): [number, number][];
export function isSerial(text: string): boolean;
export function planLanes(files: Map<string, string>): { groups: string[][]; serial: string[] };
