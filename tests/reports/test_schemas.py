#!/usr/bin/env python3
"""The --json documents of inspect, hw and models against docs/schema-*.md.

Each doc section headed "... fields of `PATH`" holds a table of field | type |
meaning; PATH is `.` (the top object), `.KEY` (a nested object), `.KEY[]` or
`[]` (every element of an array). The documented fields must be exactly the
keys the verb writes, and each value's JSON type must be one the table names:
a field added without its documentation, or documented and gone, fails.
Usage: test_schemas.py FITCHECK DOCS_DIR (FITCHECK_MODELS: the real models)."""
import json, os, re, subprocess, sys, tempfile

fitcheck, docs = sys.argv[1], sys.argv[2]
models = os.environ.get("FITCHECK_MODELS", "")
fails = []


def sections(doc, heading_has=None):
    """{path: {field: type text}} from the doc's tables."""
    out, path = {}, None
    for line in open(os.path.join(docs, doc), encoding="utf-8"):
        if line.startswith("#"):
            m = re.search(r"fields of `([^`]*)`", line, re.I)
            path = m.group(1) if m and (heading_has is None or heading_has in line) else None
            if path is not None: out[path] = {}
        elif path is not None and line.startswith("| `"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            out[path][cells[0].strip("`")] = cells[1]
    return out


def kind(v):
    if v is None: return "null"
    if isinstance(v, bool): return "boolean"
    if isinstance(v, int): return "integer"
    if isinstance(v, float): return "number"
    if isinstance(v, str): return "string"
    if isinstance(v, list): return "array"
    return "object"


def objects_at(doc, path):
    """The objects a section's PATH names in the document."""
    objs = [doc]
    for part in re.findall(r"\.?([A-Za-z_0-9]*)(\[\])?", path):
        key, arr = part
        if not key and not arr: continue
        if key: objs = [o[key] for o in objs if isinstance(o, dict) and key in o]
        if arr: objs = [e for o in objs for e in o]
    return objs


def check(what, doc, data, heading_has=None):
    secs = sections(doc, heading_has)
    if not secs: fails.append(f"{what}: no 'fields of' sections in {doc}"); return
    for path, fields in secs.items():
        objs = objects_at(data, path)
        if not objs: fails.append(f"{what}: nothing at {path} to check against {doc}"); continue
        n_before = len(fails)
        for o in objs:
            if len(fails) > n_before: break  # one failure per section is enough to say what is wrong
            keys = set(o)
            if keys != set(fields):
                fails.append(f"{what} {path}: undocumented {sorted(keys - set(fields))}, "
                             f"documented but absent {sorted(set(fields) - keys)} ({doc})")
                break
            for k, v in o.items():
                t = kind(v)
                ok = t in fields[k] or (t == "integer" and "number" in fields[k])
                if not ok:
                    fails.append(f"{what} {path}.{k}: {t} where {doc} says '{fields[k]}'"); break


def run(*args):
    r = subprocess.run([fitcheck, *args], capture_output=True, text=True, timeout=120)
    if r.returncode: fails.append(f"fitcheck {' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}"); return None
    return json.loads(r.stdout)


gguf = [os.path.join(models, f) for f in sorted(os.listdir(models)) if f.endswith(".gguf")] if os.path.isdir(models) else []
if not gguf:
    print("FITCHECK_MODELS holds no GGUF: inspect and models --local have nothing to read"); sys.exit(77)
for m in gguf:
    d = run("inspect", "--json", "--tensors", m)
    if d is not None: check(f"inspect {os.path.basename(m)}", "schema-inspect.md", d)
    d = run("inspect", "--json", m)
    if d is not None and "tensors" in d: fails.append("inspect --json without --tensors lists the tensors")
d = run("hw", "--json")
if d is not None: check("hw", "schema-hw.md", d)
d = run("models", "--json")
if d is not None: check("models", "schema-models.md", d, heading_has="`models --json`")
with tempfile.TemporaryDirectory() as tmp:
    for m in gguf: os.symlink(m, os.path.join(tmp, os.path.basename(m)))
    with open(os.path.join(tmp, "garbage.gguf"), "wb") as f: f.write(b"not a gguf at all" * 8)
    d = run("models", "--local", "--models-dir", tmp, "--json")
    if d is not None:
        check("models --local", "schema-models.md", d, heading_has="`models --local --json`")
        bad = [e for e in d if e["name"] == "garbage.gguf"]
        if not bad or bad[0]["verdict"] is not None or "GGUF" not in (bad[0]["error"] or ""):
            fails.append(f"models --local: garbage.gguf not reported as an error: {bad}")
        good = [e for e in d if e["name"] != "garbage.gguf"]
        if len(good) != len(gguf) or any(e["verdict"] is None or e["error"] is not None for e in good):
            fails.append(f"models --local: the real models not all planned: {good}")
for f in fails: print("FAIL:", f)
print(f"{len(fails)} failure(s)")
sys.exit(1 if fails else 0)
