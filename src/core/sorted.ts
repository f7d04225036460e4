// Binary search over sorted arrays (numbers or strings, compared with <), shared by every index
// kept in memory: the first place where a value could be inserted keeping the order.

/** First index i of a sorted array with a[i] >= x (a.length when none). */
export function lowerBound<T extends number | string>(a: ArrayLike<T>, x: T): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid]! < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** The strings of a sorted array that begin with `prefix`, in order. */
export function startingWith(sorted: readonly string[], prefix: string): string[] {
  const out: string[] = []
  for (let i = lowerBound(sorted, prefix); i < sorted.length && sorted[i]!.startsWith(prefix); i++) out.push(sorted[i]!)
  return out
}
