// Text spliced into DuckDB SQL by the ingest (file paths the user chose may hold quotes).

/** A SQL string literal: single quotes around, inner quotes doubled. */
export const sqlString = (text: string) => `'${text.replace(/'/g, "''")}'`
