// The registry's tables are keyed (Empresas and Simples by root, Estabelecimentos by CNPJ), but a
// monthly dump sometimes lists a key twice with different rows. The card, the search index and the
// history must all show the same one of them, in every month and every run: an arbitrary pick
// (DISTINCT ON without an order, or the first of an order that does not break ties, which follows
// the parallel load's schedule) made the card of such a company change from one build to the next;
// the history recorded a change of razão social that no month had, and, joining a CNPJ's two rows
// of one month with the two of the next, every difference between them as a change, every month
// (8 951 of a national month's changes, for 320 CNPJs listed twice; docs/decisoes.md).

/**
 * One row per `key` of `relation` (a subquery or table whose first columns are the keys): a key
 * listed once keeps its row; a key listed more than once keeps the smallest of its rows, compared
 * column by column in the relation's order (razão social first in Empresas, the card part `ficha`
 * first in Estabelecimentos). Only the repeated keys are ordered: 157 ms against 132 ms for an
 * arbitrary pick on a national partition of Empresas (656 k rows), where ordering every root took
 * 860 ms.
 */
const onePerKey = (relation: string, key: 'cnpj_basico' | 'cnpj') => `(WITH r AS (SELECT * FROM ${relation}),
    repetidas AS (SELECT ${key} FROM r GROUP BY ${key} HAVING count(*) > 1)
  SELECT * FROM r ANTI JOIN repetidas USING (${key})
  UNION ALL
  SELECT linha.* FROM (SELECT min(x) AS linha FROM (SELECT * FROM r SEMI JOIN repetidas USING (${key})) x GROUP BY ${key}))`

/** One row per root of Empresas or Simples (onePerKey). */
export const onePerRoot = (relation: string) => onePerKey(relation, 'cnpj_basico')
/** One row per CNPJ of Estabelecimentos (onePerKey). */
export const onePerCnpj = (relation: string) => onePerKey(relation, 'cnpj')
