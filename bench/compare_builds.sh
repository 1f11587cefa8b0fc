#!/usr/bin/env bash
# Compares the interpreter's speed in two builds of `blockvec`, on the same machine in one run:
#   bench/compare_builds.sh BASE_BIN NEW_BIN [ROUNDS] [KERNEL...]
# Both binaries run `blockvec bench --json` in turns, ROUNDS times each (default 3), pinned to
# one core (BV_CPU, default the last core this shell may use) so that they meet the same cache
# and clock; each kernel keeps its fastest time per build, checks off and all checks on. Prints
# a Markdown table of NEW / BASE per kernel and exits 1 when a ratio is above 1 + BV_TOLERANCE
# (default 0.05). A slow spell of a shared machine falls on both builds alike, since they take
# turns; where the noise is larger than the difference, run more rounds.
set -euo pipefail

if [[ $# -lt 2 ]]; then
  echo "usage: $0 BASE_BIN NEW_BIN [ROUNDS] [KERNEL...]" >&2
  exit 2
fi
base=$1 new=$2
shift 2
rounds=3
if [[ $# -gt 0 && $1 =~ ^[0-9]+$ ]]; then
  rounds=$1
  shift
fi
kernels=("$@")
for b in "$base" "$new"; do
  if [[ ! -x $b ]]; then
    echo "$0: $b is not an executable blockvec" >&2
    exit 2
  fi
done
cpu=${BV_CPU:-$(taskset -pc $$ | sed 's/.*: //; s/.*[,-]//')}
tolerance=${BV_TOLERANCE:-0.05}
repeat=${BV_REPEAT:-3}

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for ((r = 0; r < rounds; ++r)); do
  for which in base new; do
    bin=$base
    [[ $which == new ]] && bin=$new
    echo "round $((r + 1))/$rounds: $which" >&2
    taskset -c "$cpu" "$bin" bench "${kernels[@]}" --repeat "$repeat" --json >"$out/$which.$r.json"
  done
done

python3 - "$out" "$rounds" "$tolerance" "$cpu" "$base" "$new" "$repeat" <<'EOF'
import json, sys
out, rounds, tol, cpu, base, new, repeat = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), *sys.argv[4:]
best = {}  # (build, kernel, column) -> fastest seconds
meta = None
order = []
for which in ("base", "new"):
    for r in range(rounds):
        j = json.load(open(f"{out}/{which}.{r}.json"))
        meta = meta or j
        for row in j["results"]:
            k = row["kernel"]
            if k not in order:
                order.append(k)
            for col in ("checks_off_s", "checks_all_s"):
                key = (which, k, col)
                best[key] = min(best.get(key, 1e30), row[col])
print(f"{meta['date']}, {meta['cpu']}, pinned to core {cpu}; {rounds} rounds per build in turns, "
      f"each `blockvec bench --repeat {repeat}`; fastest time per build; ratio = new / base\n")
print("| kernel | checks off, base ms | new ms | ratio | all checks, base ms | new ms | ratio |")
print("|---|---:|---:|---:|---:|---:|---:|")
worst = 0.0
for k in order:
    cells = [k]
    for col in ("checks_off_s", "checks_all_s"):
        b, n = best[("base", k, col)], best[("new", k, col)]
        worst = max(worst, n / b)
        cells += [f"{b * 1e3:.3f}", f"{n * 1e3:.3f}", f"{n / b:.3f}"]
    print("| " + " | ".join(cells) + " |")
print(f"\nslowest ratio {worst:.3f} (tolerance {1 + tol:.2f})")
sys.exit(1 if worst > 1 + tol else 0)
EOF
