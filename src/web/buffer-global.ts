// Node's Buffer for the modules the page shares with the CLI (pcap reader, frame decoder); esbuild injects it.
export { Buffer } from 'buffer';
