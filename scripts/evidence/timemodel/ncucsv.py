"""ncucsv: what l2reuse-ncu.py and l2warm-ncu.py read of `ncu --csv` output."""
import csv

# Nsight Compute's byte units, in bytes.
_SCALE = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Kibyte": 1024, "Mibyte": 1 << 20, "Gibyte": 1 << 30}


def metric_by_id(path, metric):
    """The value of one byte metric of each profiled launch, by ncu's ID
    (launch order), in bytes; lines before the header (==PROF==) are skipped."""
    out = {}
    hdr = None
    for r in csv.reader(open(path)):
        if r and r[0] == "ID":
            hdr = r
            continue
        if hdr and len(r) == len(hdr):
            d = dict(zip(hdr, r))
            if d["Metric Name"] == metric:
                out[int(d["ID"])] = float(d["Metric Value"].replace(",", "")) * _SCALE[d["Metric Unit"]]
    return out
