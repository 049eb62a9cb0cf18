/** The MAC address of a VPCS from its last byte: VPCS MACs are 00:50:79:66:68:XX. */
export function vpcsMac(byte: number): string {
  return `00:50:79:66:68:${byte.toString(16).padStart(2, '0')}`;
}
