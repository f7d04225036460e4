// Where a month of the CNPJ dump comes from: the Receita's Nextcloud public share (NOTES §3).
// The share token has changed before, so it is a setting.
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { downloadAll } from '../lib/download'
import { ALL_ZIPS } from './parse'

export const DEFAULT_SOURCE = {
  url: process.env.RFB_CNPJ_URL ?? 'https://arquivos.receitafederal.gov.br',
  token: process.env.RFB_CNPJ_TOKEN ?? 'YggdBLfdninEJX9',
}

export interface Share {
  url: string
  token: string
}

const auth = (share: Share) => ({ authorization: `Basic ${btoa(`${share.token}:`)}` })

export interface ListedFile {
  name: string
  size?: number
}

/** PROPFIND (Depth 1) of a folder of the share; returns its entries' names and sizes. */
async function propfind(share: Share, path: string): Promise<{ href: string; size?: number }[]> {
  const response = await fetch(`${share.url}/public.php/webdav/${path}`, { method: 'PROPFIND', headers: { ...auth(share), depth: '1' } })
  if (response.status !== 207) throw new Error(`listagem de ${share.url} respondeu HTTP ${response.status}; confira a URL e o token do compartilhamento (--fonte, --token)`)
  const xml = await response.text()
  const out: { href: string; size?: number }[] = []
  for (const block of xml.split(/<d:response>/i).slice(1)) {
    const href = decodeURIComponent(/<d:href>([^<]*)<\/d:href>/i.exec(block)?.[1] ?? '')
    const size = /<d:getcontentlength>(\d+)<\/d:getcontentlength>/i.exec(block)?.[1]
    out.push({ href, size: size ? Number(size) : undefined })
  }
  return out
}

/** Months published on the share, oldest first (folders named YYYY-MM). */
export async function listMonths(share: Share): Promise<string[]> {
  const entries = await propfind(share, '')
  return [...new Set(entries.map((e) => /(\d{4}-\d{2})\/?$/.exec(e.href)?.[1]).filter((m): m is string => Boolean(m)))].sort()
}

export async function listMonthFiles(share: Share, month: string): Promise<ListedFile[]> {
  const entries = await propfind(share, `${month}/`)
  return entries
    .map((e) => ({ name: e.href.replace(/\/$/, '').split('/').pop() ?? '', size: e.size }))
    .filter((f) => /\.zip$/i.test(f.name))
}

/** Downloads the month's 37 zips into dir (resuming partial files); returns the month. */
export async function downloadMonth(share: Share, month: string | undefined, dir: (month: string) => string, options: { quiet?: boolean; concurrency?: number; log?: (l: string) => void; retryDelayMs?: number }) {
  const chosen = month ?? (await listMonths(share)).pop()
  if (!chosen) throw new Error(`nenhum mês publicado em ${share.url}`)
  const files = await listMonthFiles(share, chosen)
  const wanted = new Set(ALL_ZIPS.map((z) => `${z}.zip`.toLowerCase()))
  const present = files.filter((f) => wanted.has(f.name.toLowerCase()))
  const missing = ALL_ZIPS.filter((z) => !present.some((f) => f.name.toLowerCase() === `${z}.zip`.toLowerCase()))
  if (missing.length) options.log?.(`aviso: o mês ${chosen} não tem ${missing.join(', ')}`)
  const dest = dir(chosen)
  await mkdir(dest, { recursive: true })
  await downloadAll(
    present.map((f) => ({ url: `${share.url}/public.php/dav/files/${share.token}/${chosen}/${encodeURIComponent(f.name)}`, dest: join(dest, f.name), size: f.size })),
    { headers: auth(share), concurrency: options.concurrency ?? 4, quiet: options.quiet, label: `download ${chosen}`, log: options.log, retryDelayMs: options.retryDelayMs },
  )
  return { month: chosen, dir: dest, missing }
}
