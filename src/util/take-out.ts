/** Deletes entries from a map; the function returned puts them back in their places (the order GET lists them in). */
export function takeOut<V>(map: Map<string, V>, ids: string[]): () => void {
  const order = [...map.keys()];
  const taken = new Map<string, V>();
  for (const id of ids) {
    const value = map.get(id);
    if (value !== undefined) taken.set(id, value);
    map.delete(id);
  }
  return () => {
    const now = new Map(map);
    map.clear();
    for (const id of order) {
      const value = taken.get(id) ?? now.get(id);
      if (value === undefined) continue;
      map.set(id, value);
      now.delete(id);
    }
    for (const [id, value] of now) map.set(id, value);
  };
}
