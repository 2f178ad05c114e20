/** The value at `key`, made and stored first when absent. */
export function getOrSet<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  if (!map.has(key)) map.set(key, make());
  return map.get(key) as V;
}
