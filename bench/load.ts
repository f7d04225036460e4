// Load generator, run as its own process: `bun bench/load.ts <urls-file> <seconds> <concurrency>`.
// Keep-alive fetches from `concurrency` loops over the URL list; prints one JSON line.
const [file, seconds = '10', concurrency = '32'] = process.argv.slice(2)
const urls = (await Bun.file(file!).text()).split('\n').filter(Boolean)
const deadline = performance.now() + Number(seconds) * 1000
const latencies: number[] = []
let errors = 0
let next = 0
await Promise.all(
  Array.from({ length: Number(concurrency) }, async () => {
    while (performance.now() < deadline) {
      const url = urls[next++ % urls.length]!
      const t = performance.now()
      try {
        const r = await fetch(url)
        await r.arrayBuffer()
        if (r.status >= 500) errors++
      } catch {
        errors++
      }
      latencies.push(performance.now() - t)
    }
  }),
)
latencies.sort((a, b) => a - b)
const q = (p: number) => Number(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!.toFixed(2))
console.log(JSON.stringify({ requests: latencies.length, rps: Math.round(latencies.length / Number(seconds)), p50: q(0.5), p99: q(0.99), errors }))
export {}
