// Answers built at most once a second per process, for routes whose data changes a few times a day
// (copies of polled sources) and whose only moving parts are ages in whole seconds: under load, a
// large answer (a pack is ~60 KB) is not rebuilt and serialized per request.
import type { AppContext } from './context'
import { JsonText } from './errors'

/**
 * A handler that builds its answer once a second per process and sends the same bytes to every
 * request of that second; requests arriving while it is built wait for the same build. The JsonText
 * keeps the value it was written from (`source`), so checks on the answer (semDados) read it without
 * parsing. A failed build is not kept: the next request tries again.
 */
export function perSecond(build: (ctx: AppContext) => Promise<unknown>): (input: { ctx: AppContext }) => Promise<JsonText> {
  const built = new WeakMap<AppContext, { second: number; body: Promise<JsonText> }>()
  return ({ ctx }) => {
    const second = Math.floor(Date.now() / 1000)
    const hit = built.get(ctx)
    if (hit && hit.second === second) return hit.body
    const body = build(ctx).then((value) => new JsonText(Buffer.from(JSON.stringify(value)), value))
    body.catch(() => {
      if (built.get(ctx)?.body === body) built.delete(ctx)
    })
    built.set(ctx, { second, body })
    return body
  }
}
