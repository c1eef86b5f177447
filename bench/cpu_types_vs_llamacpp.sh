#!/usr/bin/env bash
# Measures llama.cpp's CPU kernel rate per tensor type, the numbers behind the
# CPU set's per-type dec_rate and pp_eff rows (data/efficiency.csv) and the
# tiled GEMM's shares (planner/tiled.c): for each type, a `fitcheck gen` file of
# TinyLlama-1.1B's shapes (22 layers, the type's llama-quantize mix) is run by
# llama-bench (tg32 and pp256 at THREADS threads; pp256 again with
# GGML_CPU_TILED_MM=0 for the types the tiled GEMM takes) in CYCLES interleaved
# cycles, this machine's DRAM and clocks drifting between minutes. Every rate is
# solved over each file's mix, relative to Q4_0 in the same runs (its anchored
# decode and prefill rates: the CPU set's reference basis, 100 GFLOP/s per
# thread), and printed beside the constant in use.
#
# usage: bench/cpu_types_vs_llamacpp.sh
#   LLAMA_BENCH  llama.cpp's llama-bench (default: bench/llamacpp_build.sh's)
#   ISA          avx512 (default) or avx2: which types its build repacks, so that the
#                tiled GEMM does not take them (AVX2 takes Q2_K too); for the AVX2
#                shares, run a ggml-cpu built with GGML_AVX512=OFF (LD_LIBRARY_PATH)
#   TYPES        the files' types (default: every type the CPU set has a row for)
#   CYCLES       interleaved cycles (default 3); THREADS (default 2)
set -eu
cd "$(dirname "$0")/.."
fitcheck="${FITCHECK:-build/fitcheck}"
bench="${LLAMA_BENCH:-$(bench/llamacpp_build.sh)/llama-bench}"
types="${TYPES:-Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 Q2_K Q3_K_S Q4_K_S Q5_K_S Q6_K IQ4_NL IQ4_XS IQ2_XXS IQ2_XS IQ2_M IQ3_XXS IQ3_S IQ1_S IQ1_M BF16 F16 F32}"
tiled="Q2_K Q3_K_S Q5_K_S Q6_K IQ4_XS IQ2_XXS IQ2_XS IQ2_M IQ3_XXS IQ3_S IQ1_S IQ1_M"
cycles="${CYCLES:-3}" threads="${THREADS:-2}"
dir=$(mktemp -d /tmp/fitcheck-cpu-types.XXXXXX)
trap 'rm -rf "$dir"' EXIT
for q in $types; do
    "$fitcheck" gen --like tinyllama-1.1b --quant "$q" -o "$dir/$q.gguf" >/dev/null
    "$fitcheck" inspect "$dir/$q.gguf" --json >"$dir/$q.inspect.json"
done
for c in $(seq "$cycles"); do
    for q in $types; do
        "$bench" -m "$dir/$q.gguf" -t "$threads" -p 256 -n 32 -r 2 -o json >"$dir/on$c-$q.json" 2>/dev/null ||
            echo "cpu_types_vs_llamacpp: llama-bench failed on $q" >&2
        case " $tiled " in *" $q "*)
            GGML_CPU_TILED_MM=0 "$bench" -m "$dir/$q.gguf" -t "$threads" -p 256 -n 0 -r 2 -o json \
                >"$dir/off$c-$q.json" 2>/dev/null || true ;;
        esac
    done
done
python3 - "$dir" "$threads" data/efficiency.csv "${ISA:-avx512}" <<'EOF'
import collections, csv, glob, json, os, re, statistics, sys
d, threads, eff_csv, isa = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
# the CPU set's constants (data/efficiency.csv) and reference basis (docs/speed-model.md: 50 GB/s, 100 GFLOP/s a thread)
eff = {(r[2], r[3]): float(r[4]) for r in csv.reader(l for l in open(eff_csv) if not l.startswith('#'))
       if r[:2] == ['CPU', 'llama.cpp'] and len(r) > 4}
F, BW = 100e9 * threads, 50e9 * eff[('bw_eff', '')]
# TinyLlama-1.1B: 22 layers of 32 heads of 64; tg32 attends to 15.5 positions on average
FIXED = (eff[('layer_us', '')] * threads * 22 + eff[('token_us', '')]) * 1e-6 + \
        22 * 32 * 64 * 2 * 15.5 / (eff[('attn_dec', '')] * F)
EMBD = 32000 * 2048  # token_embd: read by rows, multiplied by nothing
DEC0, PP0 = eff[('dec_rate', '*')], eff[('pp_eff', '*')]  # a type not solved yet
files, meas = {}, collections.defaultdict(list)
for f in glob.glob(d + '/*.inspect.json'):
    q = os.path.basename(f)[:-len('.inspect.json')]
    el, by = collections.Counter(), collections.Counter()
    for t in json.load(open(f))['types']:
        if t['type'] != 'f32' or q == 'F32':
            el[t['type']] += t['params']; by[t['type']] += t['bytes']
    embd = next(m['type'] for m in json.load(open(f))['mix'] if m['role'] == 'token_embd')
    by[embd] -= by[embd] * EMBD / el[embd]; el[embd] -= EMBD
    files[q] = (el, by, max(el, key=el.get))
for f in glob.glob(d + '/o*.json'):
    kind, q = os.path.basename(f)[:-5].split('-', 1)
    try: rows = json.load(open(f))
    except ValueError: continue
    for r in rows: meas[(q, kind.rstrip('0123456789'), 'tg' if r['n_gen'] else 'pp')].append(r['avg_ts'])
def m(q, kind, ph):
    v = meas.get((q, kind, ph)); return statistics.median(v) if v else None
# a type no file here is mostly made of keeps its constant; the types the tiled GEMM takes where they are not
# repacked (AVX-512: q2_K and q4_K are) are those with a share in planner/tiled.c's table for this ISA's kernel
dec = {t: v for (k, t), v in eff.items() if k == 'dec_rate' and t != '*'}
pp = {t: v for (k, t), v in eff.items() if k == 'pp_eff' and t != '*'}
kernel = 'TILED_AVX2' if isa == 'avx2' else 'TILED_VNNI'
share = {t.lower().replace('_k', '_K'): float(v) for k, t, v in
         re.findall(r'\{(TILED_\w+), GGML_TYPE_(\w+), ([0-9.]+)\}', open('planner/tiled.c').read()) if k == kernel}
def t_dec(q):
    el, by, _ = files[q]
    return FIXED + sum(max(by[t] / BW, e / (dec.get(t, DEC0) * F)) for t, e in el.items())
def t_pp(q, on):
    el, _, _ = files[q]
    return sum(2 * e / (pp.get(t, PP0) * (share.get(t, 1.0) if on else 1.0) * F) for t, e in el.items())
def solve(q, main, t_meas, cost):  # the main type's rate that makes the file's time t_meas
    el = files[q][0]
    other = sum(cost(t, e) for t, e in el.items() if t != main)
    return el[main] / (F * (t_meas - other))
for _ in range(60):  # each file's other types' rates come from their own files: iterate to the fixed point
    kd = t_dec('Q4_0') * m('Q4_0', 'on', 'tg'); kp = t_pp('Q4_0', True) * m('Q4_0', 'on', 'pp')
    for q, (el, by, main) in files.items():
        if q == 'Q4_0' or not m(q, 'on', 'tg'): continue
        dec[main] = solve(q, main, kd / m(q, 'on', 'tg') - FIXED, lambda t, e: e / (dec.get(t, DEC0) * F))
        off = m(q, 'off', 'pp')
        # the other types of a file at the rates its run ran them: with the tiled GEMM on, its types at their share
        on_cost = lambda t, e: 2 * e / (pp.get(t, PP0) * share.get(t, 1.0) * F)
        off_cost = lambda t, e: 2 * e / (pp.get(t, PP0) * F)
        pp[main] = 2 * solve(q, main, kp / (off or m(q, 'on', 'pp')), off_cost if off else on_cost)
        if off and main in share:
            share[main] = 2 * solve(q, main, kp / m(q, 'on', 'pp'), on_cost) / pp[main]
print('this machine against the reference basis (Q4_0): decode %.2f, prefill %.2f' % (kd, kp))
print('%-8s %-8s %9s %9s %7s %9s %9s %7s %6s' % ('file', 'type', 'tg t/s', 'dec_rate', 'in use', 'pp t/s', 'pp_eff', 'in use', 'tiled'))
for q, (el, by, main) in sorted(files.items()):
    if not m(q, 'on', 'tg'): continue
    print('%-8s %-8s %9.2f %9.3f %7s %9.1f %9.3f %7s %6s' % (q, main, m(q, 'on', 'tg'), dec[main],
          '%.3f' % eff[('dec_rate', main)] if ('dec_rate', main) in eff else '*', m(q, 'on', 'pp'), pp[main],
          '%.3f' % eff[('pp_eff', main)] if ('pp_eff', main) in eff else '*', '%.2f' % share[main] if main in share else '-'))
EOF
