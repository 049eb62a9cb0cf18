import type { Snapshot } from '../../../client/snapshots.js';
import type { Style } from '../../../render/style.js';
import { renderTable, type Column } from '../../../render/table.js';

/** A snapshot's time, UTC, as `2026-11-22 21:59:38Z`. */
export function snapshotTime(snapshot: Snapshot): string {
  return new Date(snapshot.created_at * 1000).toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

/** The snapshots as a table, oldest first. */
export function snapshotTable(snapshots: readonly Snapshot[], style: Style): string {
  const columns: Column<Snapshot>[] = [
    { header: 'name', value: (s) => s.name },
    { header: 'created', value: snapshotTime },
    { header: 'id', value: (s) => s.snapshot_id },
  ];
  return renderTable(snapshots, columns, style);
}

/** "before-upgrade (2026-11-22 21:59:38Z)": a snapshot named for messages. */
export function snapshotLabel(snapshot: Snapshot): string {
  return `${snapshot.name} (${snapshotTime(snapshot)})`;
}
