import { createApp } from './src/app'
import { loadConfig } from './src/core/config'
const app = await createApp(loadConfig({ free: true, dataDir: '/tmp/fx', logLevel: 'warn' }), { checkResponses: true })
for (const p of process.argv.slice(2)) {
  const r = await app.handle(new Request('http://localhost' + p)); console.log(p, r.status, JSON.stringify(await r.json()))
}
await app.close()
