// A node:test reporter that writes one JSON line per skipped or todo test, for run-tests.mjs to check.
export default async function* skipReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { skip, todo, name, file } = event.data;
    if (skip === undefined && todo === undefined) continue;
    yield JSON.stringify({ file: file ?? null, name, reason: String(skip ?? todo), kind: skip !== undefined ? 'skip' : 'todo' }) + '\n';
  }
}
