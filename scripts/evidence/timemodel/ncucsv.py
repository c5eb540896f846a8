"""ncucsv: what the evidence scripts read of `ncu --csv` output
(l2reuse-ncu.py, l2warm-ncu.py, libs/ncu-warm-join.py)."""
import csv

# Nsight Compute's byte units, in bytes.
_SCALE = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Kibyte": 1024, "Mibyte": 1 << 20, "Gibyte": 1 << 30}


def rows(path):
    """Each metric row of the CSV as a dict by ncu's column names; lines
    before the header (the program's output, ==PROF==) are skipped."""
    hdr = None
    for r in csv.reader(open(path)):
        if r and r[0] == "ID":
            hdr = r
        elif hdr and len(r) == len(hdr):
            yield dict(zip(hdr, r))


def value(d):
    """A row's metric value as a number (ncu prints thousands separators)."""
    return float(d["Metric Value"].replace(",", ""))


def metric_by_id(path, metric):
    """The value of one byte metric of each profiled launch, by ncu's ID
    (launch order), in bytes."""
    return {int(d["ID"]): value(d) * _SCALE[d["Metric Unit"]] for d in rows(path) if d["Metric Name"] == metric}
