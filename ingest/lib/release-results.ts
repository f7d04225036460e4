// A finished DuckDB query keeps its result (a partition's sorted rows: ~300 MB nationally) until
// the JavaScript object holding it is collected, and the garbage collector does not see that
// memory: over its 100 passes, the national company index grew to 20 GB in one process. A full
// collection after each partition frees them (measured over 18 national-size passes: 1.0-1.6 GB,
// flat). A full collection costs tens of ms in a big heap, so it runs only once the process has
// grown by GROWTH since the last one: small builds (tests, the bundled sample) skip nearly all.
const GROWTH = 256 * 1024 * 1024
let floor = 0

/** A full collection if resident memory grew by GROWTH since the last one, or always with `force`. */
export function releaseResults(force = false): void {
  if (!force && process.memoryUsage.rss() < floor + GROWTH) return
  Bun.gc(true)
  floor = process.memoryUsage.rss()
}
