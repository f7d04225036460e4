// The packs' answers. /v1/pacotes/brasil follows the live service's shape (keyed by family, then by
// route name); the metadata and the failed parts sit beside the families (docs/cadeias.md).
import { z } from 'zod'

const Parte = z.object({
  familia: z.string().describe('a base (dataset) da rota'),
  nome: z.string().describe('o último trecho do caminho: a chave da parte dentro da família'),
  rota: z.string(),
  preco: z.number().describe('o preço da rota chamada sozinha, em USD'),
})

const Resumo = z.object({
  rota: z.string(),
  preco: z.number(),
  partes: z.array(Parte),
  quantidade: z.number().int(),
  soma_das_partes: z.number().describe('a soma dos preços das partes chamadas uma a uma, em USD'),
  economia: z.number().describe('soma_das_partes − preco, em USD'),
  economia_pct: z.number().describe('economia ÷ soma_das_partes × 100, uma casa'),
})

export const Indisponivel = z.object({
  familia: z.string(),
  nome: z.string(),
  rota: z.string(),
  status: z.number().int().nullable().describe('o status HTTP que a rota daria sozinha; null quando não respondeu a tempo'),
  codigo: z.string().describe('o código de erro da rota (por exemplo dados_indisponiveis), ou tempo_esgotado'),
  mensagem: z.string(),
})

export const BrasilResposta = z
  .object({
    pacote: Resumo.extend({ criterio: z.string().describe('a regra que escolhe as partes na tabela de rotas') }),
    indisponiveis: z.array(Indisponivel).describe('as partes que não vieram (null na sua família); as outras vêm mesmo assim'),
  })
  .catchall(z.record(z.string(), z.unknown()).describe('uma família (a base): cada parte pelo nome, com a resposta da rota como ela a dá sozinha (com a sua fonte), ou null'))

export const AmostraResposta = z.object({
  amostra: z.literal(true),
  aviso: z.string(),
  criterio_brasil: z.string(),
  pacotes: z.array(Resumo.extend({ descricao: z.string() })).describe('cada pacote pago servido, /v1/pacotes/brasil primeiro'),
})
