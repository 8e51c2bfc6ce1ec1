"""_tune.py: tile2cu.autotune, a wrapper of the `tile2cu tune` command (docs/tune.md).

The command is found as: the exe argument; $TILE2CU_EXE; `tile2cu` on PATH;
the tile2cu binary of the checkout the package was built from.
"""
import os
import re
import shutil
import subprocess

from ._errors import Error


def _exe(exe):
    if exe:
        return exe
    if os.environ.get("TILE2CU_EXE"):
        return os.environ["TILE2CU_EXE"]
    found = shutil.which("tile2cu")
    if found:
        return found
    try:
        from ._build_info import BUILD_DIR
        cand = os.path.join(BUILD_DIR, "tile2cu")
        if os.access(cand, os.X_OK):
            return cand
    except ImportError:
        pass
    raise Error("autotune needs the tile2cu command: put it on PATH or set TILE2CU_EXE", status="IO")


def _spec(d):
    if isinstance(d, str):
        return d
    return " ".join("%s=%s" % (k, ",".join(str(x) for x in v) if isinstance(v, (list, tuple)) else v)
                    for k, v in d.items())


_CAND = re.compile(r"^candidate (\d+): (.*?): (\d+) threads, (\d+) shared bytes, (-?\d+) registers, (-?\d+) bytes "
                   r"stack, spills (-?\d+)/(-?\d+) bytes; occupancy (\d+) blocks?/SM, (.*)$")


def _defines(s):
    return dict(w.split("=", 1) for w in s.split())


def autotune(path, kernel, space, sizes=None, target=None, dry_run=False, output=None, warmup=None, reps=None,
             options=None, exe=None):
    """Runs `tile2cu tune` and returns what it found, as a dict:

    candidates  [{"defines": {"BM": "64", ...}, "threads", "shared_bytes", "registers", "stack_bytes",
                  "spill_store_bytes", "spill_load_bytes", "blocks_per_sm", "occupancy"}, ...]
    skipped     [{"defines": {...}, "reason": "..."}, ...]
    timed       [{"defines": {...}, "median_us": float}, ...]     (on a GPU)
    best        {"defines": {...}, "median_us": float} or None    (on a GPU)
    output      the command's stdout

    space is {"BM": [64, 128], ...} or the --space text; sizes {"M": 4096, ...} or the
    --sizes text. Without a GPU only dry_run=True works; otherwise tile2cu.Error
    (status "NO_DEVICE") says so. The tuning file is written by the command (output=PATH,
    default FILE.tuned.yaml); tile2cu.load(..., defines=result["best"]["defines"])
    applies the choice."""
    cmd = [_exe(exe), "tune", os.fspath(path), "--kernel", kernel, "--space", _spec(space)]
    if sizes is not None:
        cmd += ["--sizes", _spec(sizes)]
    if target:
        cmd += ["--target", target]
    if dry_run:
        cmd.append("--dry-run")
    if output:
        cmd += ["-o", os.fspath(output)]
    if warmup is not None:
        cmd += ["--warmup", str(warmup)]
    if reps is not None:
        cmd += ["--reps", str(reps)]
    cmd += list(options or [])
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:  # no such executable (exe=): a tile2cu.Error, as every failure
        raise Error("cannot run %s: %s" % (cmd[0], e.strerror or e), status="INVALID_VALUE", diagnostics="")
    if r.returncode != 0:
        err = r.stderr.strip()
        status = "NO_DEVICE" if "timing needs a GPU" in err else "INVALID_VALUE"
        raise Error(err or "tile2cu tune exited %d" % r.returncode, status=status, diagnostics="")
    out = {"candidates": [], "skipped": [], "timed": [], "best": None, "output": r.stdout}
    for line in r.stdout.splitlines():
        m = _CAND.match(line)
        if m:
            out["candidates"].append({
                "defines": _defines(m.group(2)), "threads": int(m.group(3)), "shared_bytes": int(m.group(4)),
                "registers": int(m.group(5)), "stack_bytes": int(m.group(6)), "spill_store_bytes": int(m.group(7)),
                "spill_load_bytes": int(m.group(8)), "blocks_per_sm": int(m.group(9)),
                "occupancy": "%s blocks/SM, %s" % (m.group(9), m.group(10))})
        elif line.startswith("skipped   "):
            defs, reason = line[10:].split(": ", 1)
            out["skipped"].append({"defines": _defines(defs), "reason": reason})
        elif line.startswith("timed     "):
            m2 = re.match(r"timed     (.*?): median ([0-9.]+) us", line)
            if m2:
                out["timed"].append({"defines": _defines(m2.group(1)), "median_us": float(m2.group(2))})
        elif line.startswith("best      "):
            m2 = re.match(r"best      (.*?): median ([0-9.]+) us", line)
            if m2:
                out["best"] = {"defines": _defines(m2.group(1)), "median_us": float(m2.group(2))}
    return out
