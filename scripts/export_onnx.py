"""Export every shipped network to the ONNX file(s) the engines run without PyTorch.

For each ``src/sparring/models/NAME.pt`` and ``src/sparring/models/estimators/NAME.pt``, writes
``NAME.onnx`` beside it (and ``NAME.head.onnx`` for a strength estimator;
:func:`sparring.nn.onnx_export.export_network_file`), and records each ``.onnx``'s SHA-256 as
``onnx_sha256`` in the network's calibration (``NAME.calibration.json``), beside the ``.pt``'s
``model_sha256``.  The export is deterministic: a second run writes the same bytes.  Needs
PyTorch and ``onnx`` (``pip install '.[train]'``).

    python scripts/export_onnx.py           # write the files, print their sizes and hashes
    python scripts/export_onnx.py --check   # exit 1, naming them, if a file is not up to date
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

from sparring.nn.onnx_export import export_network_file
from sparring.nn.zoo import MODEL_DIR

SOURCES = (MODEL_DIR, MODEL_DIR / "estimators")
"""The folders of the shipped networks."""


def shipped_sources() -> list[Path]:
    """Every shipped ``.pt`` network."""
    return [p for folder in SOURCES for p in sorted(folder.glob("*.pt"))]


def calibration_text(text: str, onnx_sha256: str) -> str:
    """A calibration file's text with ``onnx_sha256`` set (after ``model_sha256``), the rest
    of the file as it was."""
    line = re.compile(r'^(\s*)"onnx_sha256": [^\n]*\n', re.MULTILINE)
    text = line.sub("", text)
    anchor = re.compile(r'^(\s*)"model_sha256": [^\n]*\n', re.MULTILINE)
    found = anchor.search(text)
    if found is None:
        raise SystemExit("a calibration without model_sha256: recalibrate it first")
    added = f'{found.group(1)}"onnx_sha256": {json.dumps(onnx_sha256)},\n'
    return text[: found.end()] + added + text[found.end() :]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="Write nothing; exit 1 if stale.")
    args = parser.parse_args()
    stale = []
    for source in shipped_sources():
        files = export_network_file(source)
        for path, data in files.items():
            digest = hashlib.sha256(data).hexdigest()
            if args.check:
                if not path.is_file() or path.read_bytes() != data:
                    stale.append(path)
                continue
            path.write_bytes(data)
            print(f"{path.relative_to(MODEL_DIR)}: {len(data) / 1e6:.2f} MB, sha256 {digest}")
        onnx_file = source.with_suffix(".onnx")
        calibration = source.with_name(source.stem + ".calibration.json")
        if calibration.is_file():
            digest = hashlib.sha256(files[onnx_file]).hexdigest()
            text = calibration.read_text()
            updated = calibration_text(text, digest)
            if args.check and updated != text:
                stale.append(calibration)
            elif not args.check:
                calibration.write_text(updated)
    if stale:
        names = ", ".join(str(p.relative_to(MODEL_DIR)) for p in stale)
        sys.exit(f"not up to date (run scripts/export_onnx.py): {names}")
    if args.check:
        print("every shipped ONNX file is its .pt's export")


if __name__ == "__main__":
    main()
