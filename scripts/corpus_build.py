#!/usr/bin/env python3
"""Builds data/bench_corpus.csv from the transcribed sources in data/corpus/*.txt, and the sealed set
data/holdout_bench.csv from data/holdout/*.txt.

usage: scripts/corpus_build.py [corpus|holdout] [OUT_DIR]     (default: corpus, written into data/)

The sealed set is published results no fit has seen: 'fitcheck calibrate' must never be given it, so it shares no
source with the corpus (this script refuses a URL that both use), and it is judged with the constants as shipped
(fitcheck calibrate --evaluate; bench/speed_vs_published.sh).

Source format (one directive per line; directives persist until changed):
  @src NAME | url=URL | date=DATE      where the numbers come from
  @run key=value ...                    backend, build, era, fa, ub, ngl, threads, mmap for the rows below
                                        (era=current|old: which kernels the build ran, where its date cannot
                                        tell; empty: from the date, PLAN_CURRENT_ERA in planner/planner.h)
  @build / @ub VALUE                    change one of them
  @table COL ...                        the columns of the rows below: a llama-bench test (pp512, tg128,
                                        pp512@d4096, pp4096+tg128), optionally QUANT:test
  DEVICE MODEL [QUANT] VALUE ...        one value per column, '-' for none
Numbers are copied as printed; this script only reshapes them."""
import csv, glob, os, re, sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get('CORPUS_DATA') or os.path.join(HERE, '..', 'data')  # CORPUS_DATA: another data/ (tests)
COLS = ['device', 'backend', 'model', 'quant', 'test', 'n_prompt', 'n_gen', 'n_depth', 'tps', 'fa', 'ub', 'ngl',
        'threads', 'mmap', 'build', 'date', 'era', 'source', 'url']
TEST = re.compile(r'^(?:pp(\d+))?(?:\+)?(?:tg(\d+))?(?:@d(\d+))?$')


def parse_test(t):
    m = TEST.match(t)
    if not m or not (m.group(1) or m.group(2)):
        sys.exit(f'bad test {t!r}')
    return int(m.group(1) or 0), int(m.group(2) or 0), int(m.group(3) or 0)


# Each set: its transcriptions, its output, what its header says it is for.
SETS = {
    'corpus': ('corpus', 'bench_corpus.csv',
               "the transcriptions in data/corpus/ (each cites its source). Devices: data/hardware.json ids, else\n"
               "# data/bench_devices.csv. Models: the catalog (data/models/). test: llama-bench's name (pp512,\n"
               "# tg128, pp512@d4096, pp4096+tg128); fa/ub/ngl/threads/mmap: the flags, empty where not stated;\n"
               "# build: llama.cpp build number or commit; era: current or old where the source says which kernels\n"
               "# the build ran (empty: from the date). Used by 'fitcheck calibrate --cross-validate'.\n"),
    'holdout': ('holdout', 'holdout_bench.csv',
                "the transcriptions in data/holdout/ (each cites its source): a sealed set, gathered after the\n"
                "# speed model was frozen and never fitted on; no source is shared with data/bench_corpus.csv.\n"
                "# Columns as data/bench_corpus.csv. Judged with the shipped constants: 'fitcheck calibrate\n"
                "# --evaluate data/holdout_bench.csv' (bench/speed_vs_published.sh).\n"),
}


GITHUB_THREAD = re.compile(r'^https://github\.com/([^/]+/[^/]+)/(?:(issues|pull|discussions)/(\d+))?')


def source_key(url):
    """One source per GitHub thread (whichever comment a row cites) or repository (whichever commit or file), else
    per URL without its fragment."""
    m = GITHUB_THREAD.match(url)
    if m:
        return f'{m.group(1)}#{m.group(3)}' if m.group(2) else m.group(1)
    return url.split('#')[0].rstrip('/')


def read_set(folder):
    rows = []
    for path in sorted(glob.glob(os.path.join(DATA, folder, '*.txt'))):
        src = url = date = ''
        run = {}
        table = []
        for ln, line in enumerate(open(path), 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            where = f'{os.path.basename(path)}:{ln}'
            if line.startswith('@src '):
                parts = [p.strip() for p in line[5:].split('|')]
                src = parts[0]
                kv = dict(p.split('=', 1) for p in parts[1:])
                url, date = kv.get('url', ''), kv.get('date', '')
            elif line.startswith('@run '):
                run = dict(p.split('=', 1) for p in line[5:].split())
                if run.get('era', '') not in ('', 'current', 'old'):
                    sys.exit(f'{where}: era={run["era"]!r} (current, old or none)')
            elif line.startswith('@build ') or line.startswith('@ub '):
                k, v = line[1:].split()
                run[k] = v
            elif line.startswith('@table '):
                table = line[7:].split()
            else:
                f = line.split()
                quant_in_cols = all(':' in c for c in table)
                head = 2 if quant_in_cols else 3
                if len(f) != head + len(table):
                    sys.exit(f'{where}: {len(f)} fields for {len(table)} columns')
                for col, val in zip(table, f[head:]):
                    if val == '-':
                        continue
                    quant, test = col.split(':') if quant_in_cols else (f[2], col)
                    n_p, n_g, n_d = parse_test(test)
                    float(val)
                    rows.append({'device': f[0], 'backend': run['backend'], 'model': f[1], 'quant': quant,
                                 'test': test, 'n_prompt': n_p, 'n_gen': n_g, 'n_depth': n_d, 'tps': val,
                                 'fa': run.get('fa', ''), 'ub': run.get('ub', ''), 'ngl': run.get('ngl', ''),
                                 'threads': run.get('threads', ''), 'mmap': run.get('mmap', ''),
                                 'build': run.get('build', ''), 'date': date, 'era': run.get('era', ''),
                                 'source': src, 'url': url})
    return rows


def main():
    which = sys.argv[1] if len(sys.argv) > 1 else 'corpus'
    if which not in SETS:
        sys.exit(f'usage: corpus_build.py [{"|".join(SETS)}] [OUT_DIR]')
    folder, name, what = SETS[which]
    rows = read_set(folder)
    if which == 'holdout':
        shared = {source_key(r['url']) for r in rows} & {source_key(r['url']) for r in read_set('corpus')}
        if shared:
            sys.exit(f'sources in both the corpus and the sealed set: {sorted(shared)}')
    out = os.path.join(sys.argv[2] if len(sys.argv) > 2 else DATA, name)
    with open(out + '.tmp', 'w', newline='') as fp:
        fp.write('# Published llama-bench results (llama.cpp), one test per row, built by scripts/corpus_build.py from\n'
                 '# ' + what)
        w = csv.DictWriter(fp, COLS, lineterminator='\n')
        w.writeheader()
        for r in rows:
            if ',' in r['source'] or ',' in r['url']:
                sys.exit(f'comma in source {r["source"]!r}')
            w.writerow(r)
    os.replace(out + '.tmp', out)
    devs = {r['device'] for r in rows}
    print(f'{len(rows)} rows, {len(devs)} devices, {len({r["source"] for r in rows})} sources -> {out}')


main()
