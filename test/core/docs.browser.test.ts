// /docs in a real headless Chromium with the network closed: the reference must render from
// local assets only (no CDN) and list the routes of the OpenAPI document.
import { afterAll, expect, test } from 'bun:test'
import { existsSync } from 'node:fs'
import { chromium } from 'playwright-core'
import { testApp } from '../helpers'

const CHROMIUM = '/usr/bin/chromium'
const { app } = await testApp()
const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: app.handle })
afterAll(async () => {
  server.stop(true)
  await app.close()
})

test('/docs renders every route offline in Chromium', async () => {
  expect(existsSync(CHROMIUM)).toBe(true) // make test installs Debian's chromium (make system-deps)
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  })
  try {
    const page = await browser.newPage()
    const outside: string[] = []
    await page.route('**/*', (route) => {
      const url = new URL(route.request().url())
      if (url.hostname === '127.0.0.1') return route.continue()
      outside.push(url.href)
      return route.abort()
    })
    const errors: string[] = []
    page.on('pageerror', (e) => errors.push(e.message))
    await page.goto(`http://127.0.0.1:${server.port}/docs`)
    await page.waitForSelector('.opblock-summary-path', { timeout: 30_000 })
    const paths = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.getAttribute('data-path')))
    expect(paths).toContain('/v1/ferramentas/cnpj/{valor}')
    expect(paths).toContain('/v1/cnpj/busca')
    expect(await page.textContent('.info .title')).toContain('dadosbr')
    // An operation opened shows the sample's real values: the parameter's example and the recorded answer, no invented dates.
    await page.click('.opblock-summary-path[data-path="/v1/cnpj/situacao/{cnpj}"]')
    await page.waitForSelector('.opblock.is-open .responses-wrapper', { timeout: 10_000 })
    const opened = (await page.textContent('.opblock.is-open'))!
    expect(opened).toContain('33683111000280')
    expect(opened).toContain('2004-05-22')
    expect(opened).toContain('cnpj_invalido')
    expect(opened).toContain('"amount": "1000"')
    expect(opened).not.toMatch(/18\d\d-\d\d-\d\d|: "string"|additionalProp/)
    expect(outside).toEqual([])
    expect(errors).toEqual([])
    await page.screenshot({ path: `${process.env.TMPDIR ?? '/tmp'}/dadosbr-docs.png` })
  } finally {
    await browser.close()
  }
})
