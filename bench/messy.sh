#!/usr/bin/env bash
# `bench/run messy`: the exports users have (issue 50). A ~1 GB CSV of
# western names, cities, decimal amounts and notes, written in UTF-8 and
# in windows-1252 (Excel's "ANSI"); `csv count` and `csv to-parquet` of
# the windows-1252 copy with `--encoding windows-1252` against the UTF-8
# file (the target: at least 0.8x its speed), against `iconv | swath`
# (a pipe, read on one thread), DuckDB's read_csv(encoding='latin-1') and
# Polars' read_csv(encoding='utf8-lossy') (the only other encoding it
# reads, so its text is wrong: shown for time only). Time and peak RSS;
# every Parquet file's rows are counted and its `name` column compared
# with the one written from the UTF-8 file.
#
#   bench/run messy [--rows 9000000] [--runs 3] [--only encodings|quarantine]
#
# Needs the bench venv (SWATH_PEER_PYTHON=$(.ci/peers.sh --bench): Polars,
# DuckDB, pyarrow) and iconv (glibc's) on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
rows=9000000 runs=3 only=
while [ $# -gt 0 ]; do
    case $1 in
        --rows) rows=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --only) only=$2; shift 2 ;;
        *) echo "messy: unknown argument $1" >&2; exit 2 ;;
    esac
done
py=${SWATH_PEER_PYTHON:?set SWATH_PEER_PYTHON=\$(.ci/peers.sh --bench)}
swath=${SWATH_CLI:-${CARGO_TARGET_DIR:-target}/release/swath}
[ -n "${SWATH_CLI:-}" ] || bash bench/build
dir=${SWATH_BENCH_DIR:-$(mktemp -d)}
mkdir -p "$dir"
[ -n "${SWATH_BENCH_DIR:-}" ] || trap 'rm -rf "$dir"' EXIT

utf8=$dir/export-utf8.csv
ansi=$dir/export-cp1252.csv
if ! [ -s "$ansi" ]; then
    "$py" - "$rows" "$utf8" "$ansi" <<'EOF'
import random, sys
rows, utf8, ansi = int(sys.argv[1]), sys.argv[2], sys.argv[3]
rng = random.Random(50)
names = ["José García", "Zoë Müller", "Renée Dubois", "Ångström AB", "François Lefèvre",
         "Søren Kierkegaard", "Ana Beltrán", "Jürgen Groß", "Chloé Martín", "Plain Name"]
cities = ["München", "Zürich", "São Paulo", "Besançon", "Malmö", "Kraków", "Reykjavík", "Oslo"]
notes = ["ok", "“quoted” – late", "paid €120", "crème brûlée", "a, b and c", "naïve"]
with open(utf8, "w", encoding="utf-8", newline="") as u, open(ansi, "w", encoding="cp1252", newline="") as a:
    head = "id,name,city,amount,day,note\n"
    u.write(head); a.write(head)
    batch = []
    for i in range(rows):
        note = rng.choice(notes)
        if "," in note or "“" in note:
            note = '"' + note + '"'
        batch.append(f"{i},{rng.choice(names)},{rng.choice(cities)},{rng.randint(0, 99999) / 100},"
                     f"2024-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d},{note}\n")
        if len(batch) == 100000:
            text = "".join(batch); u.write(text); a.write(text); batch = []
    text = "".join(batch); u.write(text); a.write(text)
EOF
fi
echo "files: $(stat -c %s "$utf8") bytes UTF-8, $(stat -c %s "$ansi") bytes windows-1252, $rows records; median of $runs; $(nproc) cores"

# A run that fails prints its row with the error's last line (DuckDB's
# latin-1 refuses windows-1252's bytes 0x80-0x9F).
measure() {
    local times=() rss=()
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%e %M" -o "$dir/time" "$@" >"$dir/out" 2>"$dir/err" || {
            printf '| %-50s | %7s | %6s | %6s | failed: %s |\n' "$label" - - - \
                "$(grep -E 'Error|error' "$dir/err" | tail -1 | cut -c1-90)"
            return 1
        }
        read -r t m <"$dir/time"
        times+=("$t")
        rss+=("$m")
    done
    local mid=$((runs / 2))
    t=$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$((mid + 1))p")
    m=$(printf '%s\n' "${rss[@]}" | sort -n | sed -n "$((mid + 1))p")
    m=$((m / 1024))
}

base_t=
ratio() { # the time's speed against the UTF-8 row's
    [ -n "$base_t" ] && "$py" -c "print(f'{$base_t / $t:.2f}x')" || echo "1.00x"
}

pq=$dir/out.parquet
if [ "$only" != quarantine ]; then
echo
echo "| count the records | seconds | MiB | vs UTF-8 | answer |"
echo "| --- | ---: | ---: | ---: | --- |"
row() {
    local label=$1
    shift
    measure "$@" || return 0
    local got ok=ok
    got=$(grep -oE '[0-9]+' "$dir/out" | head -1)
    [ "$got" = "$rows" ] || ok="WRONG ($got)"
    printf '| %-50s | %7s | %6s | %6s | %s |\n' "$label" "$t" "$m" "$(ratio)" "$ok"
}
base_t=
row "swath csv count (UTF-8)" "$swath" csv count "$utf8"
base_t=$t
row "swath csv count --encoding windows-1252" "$swath" csv count --encoding windows-1252 "$ansi"
row "swath csv count --encoding auto" "$swath" csv count --encoding auto "$ansi"
row "swath csv count --encoding windows-1252, streamed" env SWATH_TEXT_BY_RANGES=0 "$swath" csv count --encoding windows-1252 "$ansi"
row "iconv -f cp1252 | swath csv count -" sh -c "iconv -f cp1252 -t utf-8 '$ansi' | '$swath' csv count -"
row "DuckDB count(*) encoding='latin-1'" "$py" -c "import duckdb; c = duckdb.connect(); c.sql('SET enable_progress_bar = false'); print(c.sql(\"SELECT count(*) FROM read_csv('$ansi', encoding='latin-1')\").fetchall()[0][0])"

echo
echo "| to Parquet | seconds | MiB | vs UTF-8 | answer |"
echo "| --- | ---: | ---: | ---: | --- |"
names_of() {
    "$py" -c "import pyarrow.parquet as p, sys; t = p.read_table(sys.argv[1], columns=['name']); print(t.num_rows, sorted(set(t.column('name').to_pylist())))" "$1"
}
pq_row() {
    local label=$1
    shift
    rm -f "$pq"
    measure "$@" || return 0
    local ok=ok
    [ "$(names_of "$pq")" = "$want" ] || ok=WRONG
    printf '| %-50s | %7s | %6s | %6s | %s (%s bytes) |\n' "$label" "$t" "$m" "$(ratio)" "$ok" "$(stat -c %s "$pq")"
}
"$swath" csv to-parquet "$utf8" -o "$dir/want.parquet"
want=$(names_of "$dir/want.parquet")
base_t=
pq_row "swath csv to-parquet (UTF-8)" "$swath" csv to-parquet "$utf8" -o "$pq"
base_t=$t
pq_row "swath csv to-parquet --encoding windows-1252" "$swath" csv to-parquet --encoding windows-1252 "$ansi" -o "$pq"
pq_row "swath csv to-parquet --encoding windows-1252, streamed" env SWATH_TEXT_BY_RANGES=0 "$swath" csv to-parquet --encoding windows-1252 "$ansi" -o "$pq"
pq_row "swath csv to-parquet --encoding windows-1252 -t 1" "$swath" csv to-parquet -t 1 --encoding windows-1252 "$ansi" -o "$pq"
pq_row "iconv -f cp1252 | swath csv to-parquet -" sh -c "iconv -f cp1252 -t utf-8 '$ansi' | '$swath' csv to-parquet - -o '$pq'"
pq_row "DuckDB COPY TO parquet, encoding='latin-1'" "$py" -c "import duckdb; c = duckdb.connect(); c.sql('SET enable_progress_bar = false'); c.sql(\"COPY (SELECT * FROM read_csv('$ansi', encoding='latin-1')) TO '$pq' (FORMAT parquet)\")"
pq_row "Polars read_csv(encoding='utf8-lossy') (text wrong)" "$py" -c "import polars as pl; pl.read_csv('$ansi', encoding='utf8-lossy').write_parquet('$pq')"
fi
[ "$only" != encodings ] || exit 0

# Broken records kept aside (issue 50, part 3): the UTF-8 export with one
# record in a hundred broken (a field too few, a stray quote, a field too
# many), converted with `--on-bad quarantine=FILE` against the clean file
# (the target: at least 0.9x its speed). Answers: the Parquet file's rows
# are the clean ones, the quarantine holds every broken record. DuckDB's
# rows are shown, not judged: it reads a stray quote as data.
dirty=$dir/export-dirty.csv
if ! [ -s "$dirty" ]; then
    "$py" - "$utf8" "$dirty" <<'EOF2'
import sys
src, dst = sys.argv[1], sys.argv[2]
broken = ["{i},broken\n", "{i},a\"b,x,1.0,2024-01-01,ok\n", "{i},x,y,1.0,2024-01-01,ok,extra\n"]
with open(src, encoding="utf-8", newline="") as s, open(dst, "w", encoding="utf-8", newline="") as d:
    d.write(s.readline())
    for n, line in enumerate(s, 1):
        d.write(line)
        if n % 99 == 0:
            d.write(broken[(n // 99) % 3].format(i=n))
EOF2
fi
bad=$((rows / 99))
echo
echo "| broken records kept aside (1 in 100) | seconds | MiB | vs clean | answer |"
echo "| --- | ---: | ---: | ---: | --- |"
q=$dir/q.csv
aside_row() { # want_rows "-": a peer, whose rules differ (shown, not judged)
    local label=$1 want_rows=$2
    shift 2
    rm -f "$pq" "$q"
    # Exit 1 is swath's "records were put aside".
    measure bash -c '"$@"; [ $? -le 1 ]' _ "$@" || return 0
    local ok=ok got
    got=$("$py" -c "import pyarrow.parquet as p, sys; print(p.ParquetFile(sys.argv[1]).metadata.num_rows)" "$pq")
    if [ "$want_rows" = - ]; then
        ok="$got rows"
    elif [ "$got" != "$want_rows" ]; then
        ok="WRONG ($got rows)"
    fi
    if [ -f "$q" ] && [ "$(wc -l <"$q")" != "$bad" ]; then ok="WRONG ($(wc -l <"$q") put aside)"; fi
    printf '| %-50s | %7s | %6s | %6s | %s |\n' "$label" "$t" "$m" "$(ratio)" "$ok"
}
base_t=
aside_row "swath csv to-parquet (clean)" "$rows" "$swath" csv to-parquet "$utf8" -o "$pq"
base_t=$t
aside_row "swath csv to-parquet --on-bad quarantine=FILE" "$rows" "$swath" csv to-parquet "$dirty" -o "$pq" --on-bad "quarantine=$q"
aside_row "swath csv to-parquet --on-bad skip" "$rows" "$swath" csv to-parquet "$dirty" -o "$pq" --on-bad skip
aside_row "DuckDB COPY TO parquet, ignore_errors=true" - "$py" -c "import duckdb; c = duckdb.connect(); c.sql('SET enable_progress_bar = false'); c.sql(\"COPY (SELECT * FROM read_csv('$dirty', ignore_errors=true)) TO '$pq' (FORMAT parquet)\")"
aside_row "DuckDB, store_rejects=true (a rejects table)" - "$py" -c "import duckdb; c = duckdb.connect(); c.sql('SET enable_progress_bar = false'); c.sql(\"COPY (SELECT * FROM read_csv('$dirty', store_rejects=true)) TO '$pq' (FORMAT parquet)\")"
