#!/usr/bin/python3
"""zxing-cpp alone, every format, on one image: the accuracy benchmark's zxing-cpp anchor.

Debian's python3-zxing-cpp wraps the same zxing-cpp 1.4.0 as libzxing2, with the library's own
defaults (try harder, rotate, downscale). Linear codes can abort zxing-cpp 1.4.0 (an assertion in
Result::operator==), so the benchmark runs this once per image and counts an abort as nothing read.
Prints the texts found as a JSON list. Usage: zxing-alone.py IMAGE
"""
import json
import sys

import zxingcpp
from PIL import Image

print(json.dumps([result.text for result in zxingcpp.read_barcodes(Image.open(sys.argv[1]).convert("L"))]))
