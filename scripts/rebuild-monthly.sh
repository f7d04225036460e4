#!/usr/bin/env bash
# The monthly rebuild a CI job runs (docs/ci.md): each dataset from its official source (what is
# already current is skipped), every build in use exported as Parquet with its dictionary, a
# checksum file and an index, and the folder published. One dataset that fails keeps its previous
# build: the others are still exported and published, and the script exits 1 at the end.
#
#   scripts/rebuild-monthly.sh [--data DIR] [--saida DIR] [--publicar DESTINO] [BASE ...]
#
# Without BASE: every dataset (dadosbr ingest todas). DESTINO: a local folder, or s3://bucket/prefix
# (aws CLI). The export goes to <saida>/<AAAA-MM>/ (the month of the run, or $DADOSBR_PUBLICACAO).
# DADOSBR (default: dadosbr on the PATH) is the program; the upstream settings (RFB_CNPJ_URL,
# DETER_URL...) pass through the environment.
set -euo pipefail

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; }

data="${DADOSBR_DATA:-./data}"
saida="./publicar"
destino=""
bases=()
while [ $# -gt 0 ]; do
  case "$1" in
    --data) data="$2"; shift 2 ;;
    --saida) saida="$2"; shift 2 ;;
    --publicar) destino="$2"; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    --*) echo "rebuild-monthly: opção desconhecida: $1 (veja --help)" >&2; exit 2 ;;
    *) bases+=("$1"); shift ;;
  esac
done

read -r -a dadosbr <<< "${DADOSBR:-dadosbr}"
command -v "${dadosbr[0]}" >/dev/null || { echo "rebuild-monthly: '${dadosbr[0]}' não encontrado; instale o dadosbr ou aponte DADOSBR para ele" >&2; exit 2; }
mes="${DADOSBR_PUBLICACAO:-$(date -u +%Y-%m)}"
say() { echo "rebuild-monthly: $*" >&2; }

failed=0
if [ ${#bases[@]} -eq 0 ]; then
  say "ingest de todas as bases"
  "${dadosbr[@]}" ingest todas --se-preciso --quiet --data "$data" || failed=1
else
  for base in "${bases[@]}"; do
    # --se-preciso where the dataset has it (the registry: nothing is downloaded when the month is built); the others download only what changed by themselves.
    extra=()
    if "${dadosbr[@]}" ingest "$base" --help | grep -q -- '--se-preciso'; then extra=(--se-preciso); fi
    say "ingest $base"
    "${dadosbr[@]}" ingest "$base" "${extra[@]}" --quiet --data "$data" || { say "$base falhou; a base em uso foi mantida"; failed=1; }
  done
fi

out="$saida/$mes"
# Every base asked for that has a build in use (one whose first build failed has none yet).
exportadas=()
for base in "${bases[@]}"; do
  if [ -e "$data/$base/current/manifest.json" ]; then exportadas+=("$base"); else say "$base sem base construída: não exportada"; fi
done
if [ ${#bases[@]} -gt 0 ] && [ ${#exportadas[@]} -eq 0 ]; then say "nenhuma base construída para exportar"; exit 1; fi
say "exportando para $out"
rm -rf "$out"
"${dadosbr[@]}" exportar "${exportadas[@]}" --saida "$out" --data "$data" --quiet

# Checksums of every file, and an index of what was published (base, reference, tables, files).
(cd "$out" && find . -type f ! -name SHA256SUMS ! -name indice.json | LC_ALL=C sort | sed 's|^\./||' | xargs -d '\n' sha256sum > SHA256SUMS)
{
  printf '{"publicacao":"%s","gerado_em":"%s","bases":[' "$mes" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
  first=1
  for manifest in "$out"/*/manifest.json; do
    base="$(basename "$(dirname "$manifest")")"
    referencia="$(grep -m1 -o '"referencia": *"[^"]*"' "$manifest" | sed 's/.*"\([^"]*\)"$/\1/')"
    [ $first -eq 1 ] || printf ','
    first=0
    printf '{"base":"%s","referencia":"%s","dicionario":"%s/dicionario.md"}' "$base" "$referencia" "$base"
  done
  printf ']}\n'
} > "$out/indice.json"
say "$(wc -l < "$out/SHA256SUMS") arquivos, $(du -sh "$out" | cut -f1)"

if [ -n "$destino" ]; then
  case "$destino" in
    s3://*)
      say "publicando em $destino/$mes"
      aws s3 sync --no-progress --delete "$out" "$destino/$mes" ;;
    *://*)
      say "destino não suportado: $destino (use uma pasta ou s3://)"; exit 2 ;;
    *)
      say "publicando em $destino/$mes"
      mkdir -p "$destino/$mes"
      # Replace the month's folder as a whole: a file of an earlier run of the same month never lingers.
      rm -rf "$destino/$mes.tmp" && cp -R "$out" "$destino/$mes.tmp" && rm -rf "$destino/$mes" && mv "$destino/$mes.tmp" "$destino/$mes" ;;
  esac
fi
exit $failed
