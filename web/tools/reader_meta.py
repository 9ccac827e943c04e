"""Print the page's reader.json: what web/src/reader/read.js needs to know of the bundled models
that Python's TileReader reads from them (the detector's class names from its ONNX metadata, its
input size, end2end; the classifier's crop size and fingerprint).

Usage: PYTHONPATH=. python web/tools/reader_meta.py [WEIGHTS_DIR] > web/dist/reader.json"""
import json
import sys

from vision.read.detector import TileReader


def main() -> None:
    reader = TileReader(sys.argv[1] if len(sys.argv) > 1 else None, threads=1)
    print(json.dumps({
        "names": reader.names,
        "imgsz": reader.imgsz,
        "crop_size": reader.crop_size,
        "end2end": reader.end2end,
        "model_id": reader.model_id,
    }))


if __name__ == "__main__":
    main()
