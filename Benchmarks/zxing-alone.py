#!/usr/bin/env python3
"""zxing-cpp alone, every format, on one image: the accuracy benchmark's zxing-cpp anchor.

Runs in .build/zxing-anchor, a venv with PyPI's zxing-cpp 3.1.1 wheel (the version
scripts/zxing-cpp builds) and Pillow, made by Benchmarks/run; the library's own defaults (try
harder, rotate, invert, downscale). The benchmark runs this once per image, as it did when the
anchor was Debian's 1.4.0, which could abort. Prints the texts found as a JSON list.
Usage: zxing-alone.py IMAGE
"""
import json
import sys

import zxingcpp
from PIL import Image

# Plain text, as ours: zxing-cpp 3's default (HRI) writes GS1 data with its AIs in brackets.
image = Image.open(sys.argv[1]).convert("L")
print(json.dumps([result.text for result in zxingcpp.read_barcodes(image, text_mode=zxingcpp.TextMode.Plain)]))
