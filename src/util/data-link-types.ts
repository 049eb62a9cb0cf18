// The capture link types, shared by the client (--dlt) and the daemon (schemas, pcap header).

/** GNS3's data_link_type names and the libpcap link-layer header type number of each. */
export const PCAP_LINK_TYPES = {
  DLT_EN10MB: 1,
  DLT_PPP_SERIAL: 50,
  DLT_C_HDLC: 104,
  DLT_FRELAY: 107,
  DLT_ATM_RFC1483: 11,
} as const;

/** A GNS3 data_link_type name. */
export type DataLinkType = keyof typeof PCAP_LINK_TYPES;

/** The names, for schemas and the CLI's `--dlt`. */
export const DATA_LINK_TYPES = Object.keys(PCAP_LINK_TYPES) as readonly DataLinkType[];

/** The link type a capture gets when none is named (GNS3's default). */
export const DEFAULT_DATA_LINK_TYPE: DataLinkType = 'DLT_EN10MB';

/** The one place a capture's link type is decided: the named one (default Ethernet) as its pcap number. */
export function pcapLinkType(name: DataLinkType | undefined): number {
  return PCAP_LINK_TYPES[name ?? DEFAULT_DATA_LINK_TYPE];
}
