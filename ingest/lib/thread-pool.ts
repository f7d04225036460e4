/**
 * Threads of the native pool (UV_THREADPOOL_SIZE) one zip load needs: its DuckDB query, the
 * pump's reads, inflate and writes (2 loads deadlocked libuv's default pool of 4). `ingest` sizes
 * the pool from it (rerunWithThreadPool in src/cli.ts), the build's plan divides by it (buildPlan).
 */
export const POOL_THREADS_PER_LOAD = 4
