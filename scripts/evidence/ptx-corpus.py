#!/usr/bin/env python3
"""ptx-corpus.py: run the simulator's kernel corpus (issue 28) on a GPU.

Usage: ptx-corpus.py MANIFEST CORPUS_DIR OUT_DIR

MANIFEST is what `WARPLAB_CORPUS_MANIFEST=FILE go test ./sim -run
TestCorpusManifest` writes: each case's PTX file, kernel, grid, block,
dynamic shared memory, arguments (buffers as base64 bytes, scalars as bits)
and the module variables its setup sets. Each case loads its PTX afresh with
CuPy (cupy.RawModule: the driver JIT-compiles it, so module variables start
from their initialisers), sets those variables (cudaMemcpyToSymbol's
equivalent through RawModule.get_global), launches, synchronises, and reads
every buffer back. Device printf goes to the process's stdout, which is
redirected to a file around each launch. Writes OUT_DIR/results.json (what
sim/corpus_h200_test.go reads) and OUT_DIR/env.txt (GPU, driver, CUDA,
CuPy versions).
"""
import base64
import ctypes
import json
import os
import sys
import tempfile

import cupy as cp
import numpy as np

DTYPES = {"f32": np.float32, "f64": np.float64, "i32": np.int32, "i64": np.int64, "u32": np.uint32}
UINT = {"f32": np.uint32, "f64": np.uint64, "i32": np.uint32, "i64": np.uint64, "u32": np.uint32}

libc = ctypes.CDLL(None)


def run_case(c, corpus_dir):
    mod = cp.RawModule(path=os.path.join(corpus_dir, c["ptx"]))
    for name, data in (c.get("globals") or {}).items():
        raw = np.frombuffer(base64.b64decode(data), dtype=np.uint8).copy()
        ptr = mod.get_global(name)  # a MemoryPointer to the variable (cuModuleGetGlobal)
        ptr.copy_from_host(raw.ctypes.data, raw.nbytes)
    fn = mod.get_function(c["kernel"])
    args, bufs = [], []
    for a in c["args"]:
        if a.get("buffer"):
            host = np.frombuffer(base64.b64decode(a["data"]), dtype=DTYPES[a["type"]]).copy()
            d = cp.asarray(host)
            bufs.append((a["buffer"], d))
            args.append(d)
        else:
            bits = np.array([a.get("bits", 0)], dtype=UINT[a["type"]])
            args.append(bits.view(DTYPES[a["type"]])[0])
    cp.cuda.runtime.deviceSynchronize()
    libc.fflush(None)
    sys.stdout.flush()
    with tempfile.TemporaryFile() as tmp:
        saved = os.dup(1)
        os.dup2(tmp.fileno(), 1)
        try:
            fn(tuple(c["grid"]), tuple(c["block"]), tuple(args), shared_mem=c.get("shared", 0))
            cp.cuda.runtime.deviceSynchronize()
            libc.fflush(None)
        finally:
            os.dup2(saved, 1)
            os.close(saved)
        tmp.seek(0)
        printf = tmp.read().decode("utf-8", "replace")
    outputs = {name: base64.b64encode(cp.asnumpy(d).tobytes()).decode() for name, d in bufs}
    return {"name": c["name"], "outputs": outputs, "printf": printf}


def main():
    manifest, corpus_dir, out = sys.argv[1:4]
    os.makedirs(out, exist_ok=True)
    cases = json.load(open(manifest))
    results = []
    for c in cases:
        try:
            results.append(run_case(c, corpus_dir))
        except Exception as e:  # one case's failure is recorded, the others run
            results.append({"name": c["name"], "outputs": {}, "printf": "", "error": repr(e)})
        print(c["name"], "error" if results[-1].get("error") else "ok", file=sys.stderr)
    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(results, f, indent=1)
    props = cp.cuda.runtime.getDeviceProperties(0)
    with open(os.path.join(out, "env.txt"), "w") as f:
        f.write("gpu: %s\n" % props["name"].decode())
        f.write("driver: %d (cudaDriverGetVersion)\n" % cp.cuda.runtime.driverGetVersion())
        f.write("runtime: %d\n" % cp.cuda.runtime.runtimeGetVersion())
        f.write("cupy: %s\n" % cp.__version__)
    print("%d cases, %d failed" % (len(results), sum(1 for r in results if r.get("error"))), file=sys.stderr)


if __name__ == "__main__":
    main()
