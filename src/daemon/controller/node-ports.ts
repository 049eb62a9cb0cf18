/** A node port as the GNS3 controller lists it. */
export interface NodePort {
  name: string;
  short_name: string;
  adapter_number: number;
  port_number: number;
  link_type: 'ethernet' | 'serial';
  data_link_types: Record<string, string>;
  /** QEMU ports also carry their adapter's device model and MAC, as in GNS3. */
  [field: string]: unknown;
}
