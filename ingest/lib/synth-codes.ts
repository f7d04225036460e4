// Codes the synthetic inputs of several datasets share, so the benchmarks' datasets meet: the
// registry's establishments (ingest/cnpj/synth.ts) sit in these municipalities, and the
// deforestation table (ingest/desmatamento/synth.ts) maps the same codes, so a supplier lookup
// lands in municipalities with alerts.

/** The Receita's own 4-digit municipality codes (TOM), spread over 0001-9699 (9707 is EXTERIOR). */
export const SYNTH_MUNICIPIOS = Array.from({ length: 5570 }, (_, i) => String(1 + Math.floor((i * 9699) / 5570)).padStart(4, '0'))
